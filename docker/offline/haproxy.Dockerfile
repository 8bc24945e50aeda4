# HAProxy from Debian's packages (bookworm: 2.6, as the haproxy:2.6 image), laid out like the
# official image: the configuration at /usr/local/etc/haproxy/haproxy.cfg, run as the haproxy user
# in the foreground (master-worker, -db), arguments starting with "-" go to haproxy.
ARG BASE_IMAGE=calendard-local/debian:bookworm
FROM ${BASE_IMAGE}
# policy-rc.d: the package's postinst must not start a daemon inside the build.
RUN printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && \
    apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy >/dev/null && \
    rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d && \
    mkdir -p /usr/local/etc/haproxy /var/lib/haproxy && chown haproxy:haproxy /var/lib/haproxy && \
    cp /etc/haproxy/haproxy.cfg /usr/local/etc/haproxy/haproxy.cfg
COPY haproxy-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /var/lib/haproxy
USER haproxy
# As the official image: SIGUSR1 is HAProxy's soft stop (finish the requests in flight).
STOPSIGNAL SIGUSR1
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
