package main

// The zone database is built into the binary (about 450 KB; used only where the host has none):
// the image's final stage is scratch, with no /usr/share/zoneinfo, and a site's timezone_string must
// load there too. An import rather than `-tags timetzdata`: the tag changes package time itself, so
// every package above it would compile under other cache keys than the tests' and vet's.
import _ "time/tzdata"
