// Verifies webhook deliveries with the official Standard Webhooks library: reads a JSON array of
// {secret, headers, body} on stdin and prints, for each, {ok, error, payload}.
const { Webhook } = require("standardwebhooks");

let text = "";
process.stdin.on("data", (d) => (text += d));
process.stdin.on("end", () => {
  const out = JSON.parse(text).map((m) => {
    try {
      const payload = new Webhook(m.secret).verify(m.body, m.headers);
      return { ok: true, payload };
    } catch (e) {
      return { ok: false, error: String(e && e.message ? e.message : e) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
