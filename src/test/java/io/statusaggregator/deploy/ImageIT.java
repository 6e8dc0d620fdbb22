package io.statusaggregator.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What can be checked of the image without a registry: the Kubernetes configuration Quarkus generated while packaging
 * (target/kubernetes, from the same container-image, HTTP, management and health settings as the image) against the
 * manifests in deploy/kubernetes. The image they name is the one the build makes; the ports the image exposes are
 * those the Deployment opens; the probes ask the health endpoints on the management port. (The image itself is
 * built by {@code deploy/image/build-tar.sh}, which checks its user, ports and entrypoint; see docs/image.md.)
 */
class ImageIT {
    private static final Path GENERATED = Path.of("target", "kubernetes", "kubernetes.yml");

    private static JsonNode container(JsonNode deployment) {
        return deployment.path("spec").path("template").path("spec").path("containers").get(0);
    }

    private static Map<String, Integer> ports(JsonNode container) {
        Map<String, Integer> ports = new TreeMap<>();
        container.path("ports").forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
        return ports;
    }

    /** A probe's path and port number (a named port resolved against the container's ports). */
    private static String probe(JsonNode container, String probe) {
        JsonNode get = container.path(probe).path("httpGet");
        JsonNode port = get.path("port");
        int number = port.isInt() ? port.asInt() : ports(container).getOrDefault(port.asText(), -1);
        return get.path("path").asText() + " on " + number;
    }

    @Test
    void theManifestsRunTheImageTheBuildMakesWithItsPortsAndProbes() throws Exception {
        assertTrue(Files.exists(GENERATED), GENERATED + " is written while packaging (quarkus-kubernetes)");
        JsonNode generated = container(Manifests.parse(GENERATED).deployment());
        JsonNode shipped = container(Manifests.build(Manifests.APPLICATION).deployment());

        String image = generated.path("image").asText();
        // The image's tag is the project's version (failsafe passes it on).
        assertTrue(image.endsWith("status-aggregator/status-aggregator:" + System.getProperty("project.version")), image);
        // Without a registry set, Quarkus names Docker Hub, which is where a bare name resolves too.
        assertEquals(image.replaceFirst("^docker\\.io/", ""), shipped.path("image").asText(), "the image the build makes");

        Map<String, Integer> exposed = ports(generated);
        assertEquals(Map.of("http", 8080, "https", 8443, "management", 9000), exposed, "the image's ports, by name");
        ports(shipped).forEach((name, port) -> assertEquals(exposed.get(name), port, "the Deployment's port " + name));
        assertEquals(List.of("https", "management"), List.copyOf(ports(shipped).keySet()), "no plain HTTP port in the cluster");

        assertEquals(probe(generated, "readinessProbe"), probe(shipped, "readinessProbe"));
        assertEquals(probe(generated, "livenessProbe"), probe(shipped, "livenessProbe"));
        assertEquals(probe(generated, "startupProbe"), probe(shipped, "startupProbe"));
        assertEquals("/q/health/ready on 9000", probe(shipped, "readinessProbe"), "readiness on the management interface");
    }
}
