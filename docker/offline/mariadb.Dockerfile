# MariaDB from Debian's packages, started like the official mariadb image: MARIADB_* (or MYSQL_*)
# variables initialise an empty /var/lib/mysql; arguments starting with "-" go to mariadbd.
ARG BASE_IMAGE=calendard-local/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client >/dev/null && \
    rm -rf /var/lib/apt/lists/* /var/lib/mysql && mkdir -p /var/lib/mysql /run/mysqld && \
    chown mysql:mysql /var/lib/mysql /run/mysqld && \
    printf '[mariadbd]\n# As the official image: every interface of the container, no host name lookups.\nbind-address = 0.0.0.0\nskip-name-resolve\n' \
      > /etc/mysql/mariadb.conf.d/90-container.cnf
COPY mariadb-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/mysql
EXPOSE 3306
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["mariadbd"]
