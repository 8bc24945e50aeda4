# Redis from Debian's packages, started like the official redis image: `redis-server [args]` in /data,
# reachable from other containers (protected mode off unless a configuration file is given).
ARG BASE_IMAGE=calendard-local/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null && \
    rm -rf /var/lib/apt/lists/* && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME /data
EXPOSE 6379
USER redis
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
