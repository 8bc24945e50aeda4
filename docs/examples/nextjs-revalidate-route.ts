// app/api/calendard/route.ts — a Next.js (App Router) receiver of calendard's webhooks that
// revalidates the pages and fetches showing what changed.
//
//   npm install standardwebhooks
//   CALENDARD_WEBHOOK_SECRET=whsec_...   (the same secret as in CALENDAR_WEBHOOKS)
//
// calendard entry: {"url": "https://www.example.com/api/calendard", "secret": "whsec_..."}
//
// Pages that fetch from calendard tag their requests, e.g.
//   fetch(`${API}/wp-json/tribe/events/v1/events/${id}`, { next: { tags: ["calendard:events", `calendard:events:${id}`] } })
import { revalidatePath, revalidateTag } from "next/cache";
import { NextResponse } from "next/server";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type CalendardWebhook = {
  type: string; // "event.updated", "event.deleted", "venue.updated", "category.deleted", …
  timestamp: string; // when calendard journaled the change (RFC 3339)
  data: {
    resource: "events" | "venues" | "organizers" | "categories" | "tags";
    id: number;
    status?: string; // post status after the change: publish, draft, trash, … (posts only)
    deleted: boolean;
    url: string; // the item's REST URL
    seq: number;
  };
};

const webhook = new Webhook(process.env.CALENDARD_WEBHOOK_SECRET ?? "");

export async function POST(request: Request) {
  // Verify the raw body: a parsed and re-serialized body would not match the signature.
  const body = await request.text();
  let message: CalendardWebhook;
  try {
    message = webhook.verify(body, {
      "webhook-id": request.headers.get("webhook-id") ?? "",
      "webhook-timestamp": request.headers.get("webhook-timestamp") ?? "",
      "webhook-signature": request.headers.get("webhook-signature") ?? "",
    }) as CalendardWebhook;
  } catch (err) {
    if (err instanceof WebhookVerificationError) {
      return NextResponse.json({ error: "invalid signature" }, { status: 401 });
    }
    throw err;
  }

  // Revalidation is idempotent: a message delivered twice (same webhook-id) does no harm, so no
  // deduplication store is needed here.
  const { resource, id } = message.data;
  revalidateTag(`calendard:${resource}`); // Next.js 16: revalidateTag(tag, "max")
  revalidateTag(`calendard:${resource}:${id}`);
  switch (resource) {
    case "events":
      revalidatePath("/events");
      revalidatePath(`/events/${id}`);
      break;
    case "venues":
    case "organizers":
      revalidatePath(`/${resource}/${id}`);
      revalidatePath("/events"); // lists show venue and organizer names
      break;
    default: // categories, tags
      revalidatePath("/events", "layout");
  }
  // Any 2xx advances calendard's cursor; anything else is retried with backoff.
  return NextResponse.json({ revalidated: true, id: request.headers.get("webhook-id") });
}
