package io.statusaggregator.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.AggregatorConfig;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The alert bridge's manifests (deploy/kubernetes/alerts) build and run the bridge as the aggregator's are run: the
 * same image and Kafka cluster, as the KafkaUser made for it, with nothing of the Kubernetes API and nothing let in.
 */
class AlertBridgeManifestsTest {
    private static final Path ALERTS = Manifests.APPLICATION.resolve("alerts");
    private static Manifests bridge;
    private static Manifests application;

    @BeforeAll
    static void build() {
        bridge = Manifests.build(ALERTS);
        application = Manifests.build(Manifests.APPLICATION);
    }

    private static JsonNode podSpec(Manifests manifests) {
        return manifests.deployment().path("spec").path("template").path("spec");
    }

    private static JsonNode container(Manifests manifests) {
        return podSpec(manifests).path("containers").get(0);
    }

    @Test
    void theBridgeIsTheAggregatorsImageRunningAlertsBesideIt() {
        for (JsonNode document : bridge.documents()) {
            assertEquals("status-aggregator", Manifests.namespace(document), () -> "in the application's namespace: " + document.path("metadata"));
        }
        assertEquals(List.of("alerts"), ManifestsTest.texts(container(bridge).path("args")));
        assertTrue(container(bridge).path("command").isMissingNode(), "the image's entrypoint, given the command alerts");
        assertEquals(container(application).path("image"), container(bridge).path("image"));
        assertEquals(application.environment().get("JAVA_TOOL_OPTIONS"), bridge.environment().get("JAVA_TOOL_OPTIONS"));
        assertTrue(application.ofKind("Deployment").noneMatch(d -> d.path("metadata").path("name").asText().contains("alerts")),
                "not started by the aggregator's own kustomization: the PrometheusRule is the other way to alert");
        JsonNode resources = container(bridge).path("resources");
        assertEquals(resources.path("requests").path("memory"), resources.path("limits").path("memory"), "memory requested as limited");
        assertTrue(resources.path("limits").path("cpu").isTextual(), "a CPU limit");
    }

    @Test
    void everySettingIsOneTheBridgeReadsAndKafkaIsTheAggregatorsAsTheBridgesOwnUser() throws Exception {
        Map<String, String> env = bridge.environment();
        Set<String> known = new HashSet<>();
        ManifestsTest.keys("aggregator", AggregatorConfig.class, known);
        for (String name : env.keySet()) {
            if (name.startsWith("AGGREGATOR_")) {
                assertTrue(name.startsWith("AGGREGATOR_ALERTS_") || name.startsWith("AGGREGATOR_TOPICS_"), () -> name + " is not read by alerts");
                assertTrue(known.stream().map(Manifests::environmentName).anyMatch(name::equals), () -> name + " is no setting of the application");
            } else if (name.startsWith("KAFKA_")) {
                assertTrue(ConsumerConfig.configNames().stream().map(Manifests::environmentName).anyMatch(n -> name.equals("KAFKA_" + n)),
                        () -> name + " is no setting of a Kafka consumer");
            } else if (name.startsWith("QUARKUS_")) {
                assertTrue(ManifestsTest.QUARKUS_SETTINGS.contains(name), name);
            } else {
                assertEquals("JAVA_TOOL_OPTIONS", name, "unexpected variable");
            }
        }
        Map<String, String> aggregators = application.environment();
        aggregators.forEach((name, value) -> {
            if (name.startsWith("KAFKA_") && !name.equals("KAFKA_SASL_JAAS_CONFIG")) {
                assertEquals(value, env.get(name), () -> name + " as the aggregator has it: the same Kafka cluster");
            }
        });
        assertEquals(volume(application, "kafka-ca"), volume(bridge, "kafka-ca"), "Strimzi's cluster CA, mounted where KAFKA_SSL_TRUSTSTORE_LOCATION says");
        assertEquals(mountedAt(application, "kafka-ca"), mountedAt(bridge, "kafka-ca"));

        // The KafkaUser made for the bridge (users.yaml, whose ACLs StrimziResourcesTest checks): its Secret, its group.
        assertTrue(env.get("KAFKA_SASL_JAAS_CONFIG").contains("secretKeyRef"), "the password from a Secret");
        JsonNode jaas = StreamSupport.stream(container(bridge).path("env").spliterator(), false)
                .filter(v -> v.path("name").asText().equals("KAFKA_SASL_JAAS_CONFIG")).findFirst().orElseThrow()
                .path("valueFrom").path("secretKeyRef");
        assertEquals(StrimziResources.ALERTS_USER, jaas.path("name").asText());
        assertEquals("sasl.jaas.config", jaas.path("key").asText());
        assertTrue(StrimziResources.readDeployKafka().users().stream()
                .anyMatch(u -> u.getMetadata().getName().equals(StrimziResources.ALERTS_USER)), "deploy/kafka makes that user");
        assertEquals(StrimziResources.alertsGroup(), env.getOrDefault("AGGREGATOR_ALERTS_GROUP_ID", StrimziResources.alertsGroup()),
                "the group its user may use");
        URI alertmanager = URI.create(env.get("AGGREGATOR_ALERTS_ALERTMANAGER_URL"));
        assertTrue(List.of("http", "https").contains(alertmanager.getScheme()) && alertmanager.getUserInfo() == null, alertmanager.toString());
    }

    @Test
    void thePodHasNoTokenAndRunsLockedDown() {
        JsonNode pod = podSpec(bridge);
        assertFalse(pod.path("automountServiceAccountToken").asBoolean(true), "no Kubernetes API token: the bridge needs none");
        assertFalse(pod.path("enableServiceLinks").asBoolean(true), "no service-link variables, which KAFKA_* ones would read as settings");
        assertTrue(pod.path("securityContext").path("runAsNonRoot").asBoolean());
        assertTrue(pod.path("securityContext").path("runAsUser").asInt() > 0);
        assertEquals("RuntimeDefault", pod.path("securityContext").path("seccompProfile").path("type").asText());
        JsonNode own = container(bridge).path("securityContext");
        assertTrue(own.path("readOnlyRootFilesystem").asBoolean());
        assertFalse(own.path("allowPrivilegeEscalation").asBoolean(true));
        assertEquals(List.of("ALL"), ManifestsTest.texts(own.path("capabilities").path("drop")));
        assertTrue(container(bridge).path("ports").isMissingNode(), "alerts opens no port");
    }

    /** Nothing gets in; out only to the Kafka cluster's pods, the Alertmanager's port, and DNS. */
    @Test
    void theNetworkPolicyLetsNothingInAndOnlyKafkaAlertmanagerAndDnsOut() {
        JsonNode policy = bridge.get("NetworkPolicy", "status-aggregator-alerts").path("spec");
        assertEquals(bridge.deployment().path("spec").path("template").path("metadata").path("labels").path("app.kubernetes.io/name"),
                policy.path("podSelector").path("matchLabels").path("app.kubernetes.io/name"), "it selects the bridge's pods");
        assertEquals(List.of("Ingress", "Egress"), ManifestsTest.texts(policy.path("policyTypes")));
        assertTrue(policy.path("ingress").isMissingNode() || policy.path("ingress").isEmpty(), "no ingress rule");
        Map<String, String> env = bridge.environment();
        int kafkaPort = Integer.parseInt(env.get("KAFKA_BOOTSTRAP_SERVERS").replaceAll(".*:", ""));
        URI alertmanager = URI.create(env.get("AGGREGATOR_ALERTS_ALERTMANAGER_URL"));
        int alertmanagerPort = alertmanager.getPort() > 0 ? alertmanager.getPort() : alertmanager.getScheme().equals("https") ? 443 : 80;
        Set<String> out = ManifestsTest.egress(policy);
        assertTrue(out.contains(kafkaPort + "/TCP [{\"podSelector\":{\"matchLabels\":{\"strimzi.io/cluster\":\"status-aggregator\"}}}]"), out.toString());
        String alertmanagerNamespace = alertmanager.getHost().split("\\.")[1];
        assertTrue(out.contains(alertmanagerPort + "/TCP [{\"namespaceSelector\":{\"matchLabels\":{\"kubernetes.io/metadata.name\":\""
                + alertmanagerNamespace + "\"}}}]"), "the Alertmanager's namespace and port: " + out);
        assertTrue(out.contains("53/UDP anywhere") && out.contains("53/TCP anywhere"), "DNS: " + out);
        assertEquals(4, out.size(), "nothing else: " + out);
    }

    private static JsonNode volume(Manifests manifests, String name) {
        return StreamSupport.stream(podSpec(manifests).path("volumes").spliterator(), false).filter(v -> name.equals(v.path("name").asText()))
                .findFirst().orElseThrow(() -> new AssertionError("no volume " + name));
    }

    private static String mountedAt(Manifests manifests, String volume) {
        return StreamSupport.stream(container(manifests).path("volumeMounts").spliterator(), false)
                .filter(m -> volume.equals(m.path("name").asText())).findFirst().orElseThrow().path("mountPath").asText();
    }
}
