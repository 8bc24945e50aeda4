// Runs wpapi's autodiscovery against a site URL (argv[2]) and prints what it found as JSON:
// the endpoint it bound to and the titles of the first page of events read through it.
const WPAPI = require('wpapi');

WPAPI.discover(process.argv[2])
  .then((site) => {
    const endpoint = site._options.endpoint;
    return site.namespace('tribe/events/v1').events().perPage(2).get()
      .then((res) => ({ endpoint, events: (res.events || []).map((e) => e.id) }));
  })
  .then((out) => { console.log(JSON.stringify(out)); })
  .catch((err) => { console.error(String(err && err.stack || err)); process.exit(1); });
