# Meilisearch from the upstream Linux binary the search tests run (.ci/install-meilisearch; Debian
# packages none), laid out like the official getmeili/meilisearch image: data in /meili_data,
# listening on 0.0.0.0:7700, configured by MEILI_* variables, under tini as its init (as there: a
# stop signal reaches the server, which PID 1 would otherwise not get by default); curl for health
# checks.
ARG BASE_IMAGE=calendard-local/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl ca-certificates tini >/dev/null && \
    rm -rf /var/lib/apt/lists/* && mkdir -p /meili_data
COPY meilisearch /bin/meilisearch
ENV MEILI_HTTP_ADDR=0.0.0.0:7700 MEILI_SERVER_PROVIDER=docker MEILI_NO_ANALYTICS=true
WORKDIR /meili_data
VOLUME /meili_data
EXPOSE 7700
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["/bin/meilisearch"]
