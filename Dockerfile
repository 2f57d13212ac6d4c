# dimstream service image.  Build: docker build -t dimstream .
# Run:  docker run -v "$PWD/examples:/config:ro" -v dimstream-data:/var/lib/dimstream dimstream \
#         run --config /config/customers.yaml --bootstrap-servers kafka:9092
# The default command expects the spec at /config/dim.yaml. Relative paths in the spec (service.data_dir,
# default ./data) resolve against /var/lib/dimstream, the volume for the service's state and tables.

FROM maven:3-eclipse-temurin-17 AS build
WORKDIR /src
# Dependencies first, so that a change in src/ does not download them again.
COPY pom.xml .
RUN mvn -B -q dependency:go-offline || true
COPY src ./src
RUN mvn -B -q -DskipTests package

FROM eclipse-temurin:17-jre
RUN groupadd --system dimstream && useradd --system --gid dimstream --home-dir /var/lib/dimstream dimstream \
    && mkdir -p /var/lib/dimstream /config && chown dimstream:dimstream /var/lib/dimstream
COPY --from=build /src/target/dimstream.jar /opt/dimstream/dimstream.jar
USER dimstream
WORKDIR /var/lib/dimstream
VOLUME ["/var/lib/dimstream"]
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75"
ENTRYPOINT ["java", "-jar", "/opt/dimstream/dimstream.jar"]
CMD ["run", "--config", "/config/dim.yaml"]
