package io.statusaggregator.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smallrye.config.WithName;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.preflight.PreflightResource;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The application's manifests build with {@code kubectl kustomize} (as {@code kubectl apply -k} builds them) and
 * hold what running in a management cluster needs: replicas, probes, resources, a locked-down pod, the webhook wired
 * to the pods, and settings that agree with the RBAC. The CRDs for clusters lacking them build on their own and are
 * not part of the application's kustomization. What the RBAC grants against what the application asks is RbacTest's.
 */
class ManifestsTest {
    private static Manifests manifests;

    @BeforeAll
    static void build() {
        manifests = Manifests.build(Manifests.APPLICATION);
    }

    private static JsonNode podSpec() {
        return manifests.deployment().path("spec").path("template").path("spec");
    }

    private static JsonNode container() {
        return podSpec().path("containers").get(0);
    }

    @Test
    void everyDocumentIsAKubernetesObjectAndNamespacedOnesLiveWhereTheyShould() {
        assertFalse(manifests.documents().isEmpty());
        for (JsonNode document : manifests.documents()) {
            assertTrue(document.path("apiVersion").isTextual() && document.path("kind").isTextual()
                    && document.path("metadata").path("name").isTextual(), () -> "not an object: " + document);
        }
        Set<String> clusterScoped = Set.of("Namespace", "ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration",
                "CustomResourceDefinition");
        for (JsonNode document : manifests.documents()) {
            String kind = document.path("kind").asText();
            String namespace = Manifests.namespace(document);
            if (clusterScoped.contains(kind)) {
                assertEquals(null, namespace, () -> kind + " is cluster-scoped");
            } else if (List.of("Role", "RoleBinding").contains(kind) && !"status-aggregator".equals(namespace)) {
                assertEquals(manifests.setting("aggregator.capi-namespace").orElseThrow(), namespace,
                        () -> kind + " " + document.path("metadata").path("name").asText() + " is neither in the application's namespace nor the CAPI one");
            } else {
                assertEquals("status-aggregator", namespace, () -> kind + " " + document.path("metadata").path("name").asText());
            }
        }
        manifests.get("Namespace", "status-aggregator");
        assertEquals(0, manifests.ofKind("CustomResourceDefinition").count(),
                "the CRDs are for clusters lacking them: deploy/kubernetes/crds, not the application's kustomization");
    }

    @Test
    void theDeploymentRunsTwoReplicasOrMoreAsItsServiceAccount() {
        JsonNode deployment = manifests.deployment();
        assertTrue(deployment.path("spec").path("replicas").asInt() >= 2, "replicas: " + deployment.path("spec").path("replicas"));
        JsonNode selector = deployment.path("spec").path("selector").path("matchLabels");
        JsonNode labels = deployment.path("spec").path("template").path("metadata").path("labels");
        selector.properties().forEach(e -> assertEquals(e.getValue(), labels.path(e.getKey()), "the selector selects the pods"));
        assertEquals("status-aggregator", labels.path("app.kubernetes.io/name").asText(), "the label preflight-webhook.yaml selects on");
        assertEquals("0", deployment.path("spec").path("strategy").path("rollingUpdate").path("maxUnavailable").asText(),
                "a rollout keeps every replica until its successor runs");

        String account = manifests.serviceAccount();
        assertEquals("status-aggregator", account);
        manifests.find("ServiceAccount", account).filter(sa -> "status-aggregator".equals(Manifests.namespace(sa)))
                .orElseThrow(() -> new AssertionError("the Deployment's ServiceAccount is not shipped"));
        assertFalse(podSpec().path("automountServiceAccountToken").isBoolean() && !podSpec().path("automountServiceAccountToken").asBoolean(),
                "the pod needs its token: the API server is its input");
        assertTrue(container().path("image").asText().startsWith("status-aggregator/status-aggregator:"), container().path("image").asText());

        JsonNode pdb = manifests.get("PodDisruptionBudget", "status-aggregator");
        assertEquals(1, pdb.path("spec").path("minAvailable").asInt());
        assertEquals(selector, pdb.path("spec").path("selector").path("matchLabels"));
    }

    @Test
    void probesAskTheHealthEndpointsOverHttpsOnTheManagementInterface() {
        Map<String, String> env = manifests.environment();
        // Quarkus' defaults: HTTPS on 8443 and the management interface on 9000 (application.properties).
        assertEquals(8443, containerPort("https"));
        int port = 9000;
        assertEquals(port, containerPort("management"));
        assertTrue(env.containsKey("QUARKUS_TLS_KEY_STORE_PEM_0_CERT") && env.containsKey("QUARKUS_TLS_KEY_STORE_PEM_0_KEY"), "TLS set: " + env);
        assertEquals("disabled", env.get("QUARKUS_HTTP_INSECURE_REQUESTS"), "no plain HTTP port");
        // The application listens on loopback unless told otherwise; in a pod the probes and Services come from outside.
        assertEquals("0.0.0.0", env.get("QUARKUS_HTTP_HOST"));
        assertEquals("0.0.0.0", env.get("QUARKUS_MANAGEMENT_HOST"));
        JsonNode startup = container().path("startupProbe");
        assertTrue(startup.path("periodSeconds").asInt() * startup.path("failureThreshold").asInt() > 60,
                "the startup probe outlasts the application's own 60 s start timeout, whose error says what failed");
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            JsonNode get = container().path(probe).path("httpGet");
            assertEquals(Map.of("startupProbe", "/q/health/started", "livenessProbe", "/q/health/live", "readinessProbe", "/q/health/ready")
                    .get(probe), get.path("path").asText(), probe);
            // With TLS set the management interface answers HTTPS only (HttpsTest): a plain HTTP probe would fail forever.
            assertEquals("HTTPS", get.path("scheme").asText(), probe);
            JsonNode probePort = get.path("port");
            assertEquals(port, probePort.isInt() ? probePort.asInt() : containerPort(probePort.asText()), probe);
        }
    }

    /** Ingress to the pods: the user-facing port from anywhere, the management port from monitoring only, nothing else. */
    @Test
    void aNetworkPolicyLetsInTheUserFacingPortAndMetricsFromMonitoringOnly() {
        JsonNode policy = manifests.get("NetworkPolicy", "status-aggregator").path("spec");
        JsonNode labels = manifests.deployment().path("spec").path("template").path("metadata").path("labels");
        policy.path("podSelector").path("matchLabels").properties()
                .forEach(e -> assertEquals(e.getValue(), labels.path(e.getKey()), "the policy selects the aggregator's pods"));
        assertEquals(List.of("Ingress", "Egress"), texts(policy.path("policyTypes")));
        Map<Integer, JsonNode> fromByPort = new java.util.TreeMap<>();
        for (JsonNode rule : policy.path("ingress")) {
            for (JsonNode port : rule.path("ports")) {
                JsonNode number = port.path("port");
                fromByPort.put(number.isInt() ? number.asInt() : containerPort(number.asText()), rule.path("from"));
            }
        }
        assertEquals(java.util.Set.of(8443, 9000), fromByPort.keySet(), "only the user-facing and management ports");
        assertTrue(fromByPort.get(8443).isMissingNode() || fromByPort.get(8443).isEmpty(),
                "the webhook port from anywhere: the API server's address is no label");
        JsonNode monitoring = fromByPort.get(9000);
        assertEquals(1, monitoring.size(), "metrics from one place: " + monitoring);
        assertEquals("monitoring", monitoring.get(0).path("namespaceSelector").path("matchLabels").path("kubernetes.io/metadata.name").asText());
        assertTrue(monitoring.get(0).path("ipBlock").isMissingNode(), "no address range");
    }

    /**
     * Egress from the pods: Kafka's port to the Kafka cluster's pods, the API servers' ports anywhere (the management
     * cluster's and the workload clusters'), DNS; nothing else, so that no other port, an instance metadata service's
     * say, is in reach.
     */
    @Test
    void aNetworkPolicyLetsOutOnlyKafkaTheApiServersAndDns() {
        JsonNode policy = manifests.get("NetworkPolicy", "status-aggregator").path("spec");
        String bootstrap = manifests.environment().get("KAFKA_BOOTSTRAP_SERVERS");
        int kafkaPort = Integer.parseInt(bootstrap.replaceAll(".*:", ""));
        Set<String> out = egress(policy);
        assertEquals(Set.of(kafkaPort + "/TCP [{\"podSelector\":{\"matchLabels\":{\"strimzi.io/cluster\":\"status-aggregator\"}}}]",
                "443/TCP anywhere", "6443/TCP anywhere", "53/UDP anywhere", "53/TCP anywhere"), out);
    }

    @Test
    void resourcesAreRequestedAndLimited() {
        JsonNode resources = container().path("resources");
        for (String what : List.of("requests", "limits")) {
            assertTrue(resources.path(what).path("cpu").isTextual() && resources.path(what).path("memory").isTextual(), what + ": " + resources);
        }
        String jvm = manifests.environment().getOrDefault("JAVA_TOOL_OPTIONS", "");
        assertTrue(jvm.contains("MaxRAMPercentage"), "the heap follows the memory limit");
        // Under the CPU limit of one the JVM's own choice would be the serial collector; the figures are G1's.
        assertTrue(List.of(jvm.split(" ")).contains("-XX:+UseG1GC"), "the collector is G1 whatever the CPU limit: " + jvm);
        assertEquals("1", resources.path("limits").path("cpu").asText(), "the CPU limit the collector's choice is made for");
        assertEquals(resources.path("limits").path("memory"), resources.path("requests").path("memory"),
                "memory requested as limited: a JVM keeps the heap it grew to");
        assertTrue(List.of(jvm.split(" ")).contains("-XX:+ExitOnOutOfMemoryError"), "out of memory, the pod restarts: " + jvm);
    }

    /** The JVM the Deployment runs is the image's own: the same heap and collector settings, measured together. */
    @Test
    void theDeploymentsJvmOptionsAreTheImagesOwn() throws java.io.IOException {
        List<String> image = imageJvmArguments();
        List<String> deployment = List.of(manifests.environment().getOrDefault("JAVA_TOOL_OPTIONS", "").split(" "));
        assertEquals(image.stream().filter(option -> option.startsWith("-XX:")).toList(), deployment,
                "the Deployment's JAVA_TOOL_OPTIONS against the image's -XX arguments");
        assertTrue(deployment.contains("-XX:-G1UseAdaptiveIHOP") && deployment.contains("-XX:InitiatingHeapOccupancyPercent=75"),
                "G1 starts marking at a fixed 75 % of the heap, as measured at the Deployment's limits: " + deployment);
    }

    /** The benchmarks' figures are the image's JVM's: their harness runs the aggregator with the image's collector settings. */
    @Test
    void theBenchmarksRunTheImagesCollector() throws java.io.IOException {
        java.util.regex.Matcher bench = java.util.regex.Pattern.compile("<bench\\.jvm\\.args>([^<]*)</bench\\.jvm\\.args>")
                .matcher(java.nio.file.Files.readString(java.nio.file.Path.of("pom.xml")));
        assertTrue(bench.find(), "pom.xml's bench profile sets bench.jvm.args");
        List<String> harness = List.of(bench.group(1).trim().split("\\s+"));
        // Every -XX option but the heap's size, which is the harness's own, and what the JVM does out of memory.
        List<String> collector = imageJvmArguments().stream().filter(option -> option.startsWith("-XX:") && !option.contains("RAM")
                && !option.contains("OutOfMemory")).toList();
        assertFalse(collector.isEmpty(), "the image names its collector");
        assertTrue(harness.containsAll(collector), "the harness's JVM " + harness + " against the image's collector settings " + collector);
    }

    /** The image's JVM arguments, as application.properties gives them to the container-image build. */
    private static List<String> imageJvmArguments() throws java.io.IOException {
        java.util.Properties application = new java.util.Properties();
        try (var in = java.nio.file.Files.newInputStream(java.nio.file.Path.of("src/main/resources/application.properties"))) {
            application.load(in);
        }
        return List.of(application.getProperty("quarkus.jib.jvm-arguments", "").split(","));
    }

    @Test
    void thePodRunsLockedDown() {
        JsonNode pod = podSpec().path("securityContext");
        JsonNode own = container().path("securityContext");
        assertTrue(own.path("runAsNonRoot").asBoolean(pod.path("runAsNonRoot").asBoolean()), "runAsNonRoot");
        assertTrue(pod.path("runAsUser").asInt(own.path("runAsUser").asInt(0)) > 0, "a numeric non-root user, so runAsNonRoot can be checked");
        assertEquals("RuntimeDefault", pod.path("seccompProfile").path("type").asText(own.path("seccompProfile").path("type").asText()));
        assertTrue(own.path("readOnlyRootFilesystem").asBoolean(), "readOnlyRootFilesystem");
        assertFalse(own.path("allowPrivilegeEscalation").asBoolean(true), "allowPrivilegeEscalation");
        assertEquals(List.of("ALL"), texts(own.path("capabilities").path("drop")));
        assertTrue(own.path("capabilities").path("add").isMissingNode(), "no capability added");
        assertEquals("emptyDir", volumeSource(mountedAt("/tmp")), "a writable /tmp on a read-only root");
        assertFalse(podSpec().path("enableServiceLinks").asBoolean(true), "no service-link variables, which KAFKA_* ones would read as settings");
        JsonNode namespaceLabels = manifests.get("Namespace", "status-aggregator").path("metadata").path("labels");
        assertEquals("restricted", namespaceLabels.path("pod-security.kubernetes.io/warn").asText(), "a pod short of restricted is reported");
        assertTrue(List.of("baseline", "restricted").contains(namespaceLabels.path("pod-security.kubernetes.io/enforce").asText()));
    }

    @Test
    void theWebhookReachesThePodsThroughItsServiceWithTheMountedCertificate() {
        JsonNode configuration = manifests.get("ValidatingWebhookConfiguration", "status-aggregator-preflight");
        JsonNode webhook = configuration.path("webhooks").get(0);
        JsonNode service = webhook.path("clientConfig").path("service");
        assertEquals(PreflightResource.ADMISSION_PATH, service.path("path").asText(), "the path the webhook is served at");
        JsonNode svc = manifests.get("Service", service.path("name").asText());
        assertEquals(Manifests.namespace(svc), service.path("namespace").asText());
        JsonNode servicePort = StreamSupport.stream(svc.path("spec").path("ports").spliterator(), false)
                .filter(p -> p.path("port").asInt() == service.path("port").asInt(443)).findFirst().orElseThrow();
        JsonNode target = servicePort.path("targetPort");
        assertEquals(8443, target.isInt() ? target.asInt() : containerPort(target.asText()), "the webhook Service reaches the served port");
        JsonNode labels = manifests.deployment().path("spec").path("template").path("metadata").path("labels");
        svc.path("spec").path("selector").properties().forEach(e -> assertEquals(e.getValue(), labels.path(e.getKey()), "the Service selects the pods"));
        List<String> rules = texts(webhook.path("rules").get(0).path("resources"));
        assertEquals(List.of("clusters"), rules, "the main resource only: status writes are not judged");

        // The serving certificate: cert-manager's secret, mounted where the settings point, for the Service's DNS name.
        JsonNode certificate = manifests.get("Certificate", "status-aggregator-preflight");
        assertEquals("status-aggregator/status-aggregator-preflight", configuration.path("metadata").path("annotations")
                .path("cert-manager.io/inject-ca-from").asText());
        String secret = certificate.path("spec").path("secretName").asText();
        JsonNode tlsVolume = StreamSupport.stream(podSpec().path("volumes").spliterator(), false)
                .filter(v -> secret.equals(v.path("secret").path("secretName").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("the certificate's secret " + secret + " is not mounted"));
        String mountPath = StreamSupport.stream(container().path("volumeMounts").spliterator(), false)
                .filter(m -> m.path("name").asText().equals(tlsVolume.path("name").asText())).findFirst().orElseThrow()
                .path("mountPath").asText();
        Map<String, String> env = manifests.environment();
        assertEquals(mountPath + "/tls.crt", env.get("QUARKUS_TLS_KEY_STORE_PEM_0_CERT"));
        assertEquals(mountPath + "/tls.key", env.get("QUARKUS_TLS_KEY_STORE_PEM_0_KEY"));
        assertTrue(texts(certificate.path("spec").path("dnsNames")).contains(svc.path("metadata").path("name").asText() + "."
                + Manifests.namespace(svc) + ".svc"));
        // Issued by a CA of its own, which is what caBundle holds: a serving certificate renewed leaves caBundle as it is.
        JsonNode issuer = manifests.get("Issuer", certificate.path("spec").path("issuerRef").path("name").asText());
        JsonNode ca = manifests.get("Certificate", "status-aggregator-ca");
        assertEquals(ca.path("spec").path("secretName").asText(), issuer.path("spec").path("ca").path("secretName").asText());
        assertTrue(ca.path("spec").path("isCA").asBoolean(), "the CA certificate is a CA");
        assertTrue(manifests.get("Issuer", ca.path("spec").path("issuerRef").path("name").asText()).path("spec").has("selfSigned"));

        JsonNode metrics = manifests.get("Service", "status-aggregator");
        assertTrue(texts(certificate.path("spec").path("dnsNames")).contains("status-aggregator." + Manifests.namespace(metrics) + ".svc"),
                "the page's and metrics' Service named too");
        assertEquals("/q/metrics", metrics.path("metadata").path("annotations").path("prometheus.io/path").asText());
        assertEquals("https", metrics.path("metadata").path("annotations").path("prometheus.io/scheme").asText());
        assertEquals(containerPort("management"), metrics.path("metadata").path("annotations").path("prometheus.io/port").asInt(),
                "metrics are on the management interface");
    }

    /** The Quarkus settings the manifests may set: listening hosts, TLS, plain HTTP off, JSON logs. */
    static final Set<String> QUARKUS_SETTINGS = Set.of("QUARKUS_TLS_KEY_STORE_PEM_0_CERT", "QUARKUS_TLS_KEY_STORE_PEM_0_KEY",
            "QUARKUS_TLS_RELOAD_PERIOD", "QUARKUS_HTTP_INSECURE_REQUESTS", "QUARKUS_LOG_CONSOLE_JSON_ENABLED", "QUARKUS_HTTP_HOST",
            "QUARKUS_MANAGEMENT_HOST");

    @Test
    void everySettingIsOneTheApplicationReadsAndTheRbacAgreesWithThem() {
        Map<String, String> env = manifests.environment();
        assertTrue(env.getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "").contains(":"), "a Kafka cluster is named: " + env);
        Set<String> known = new HashSet<>();
        keys("aggregator", AggregatorConfig.class, known);
        for (String name : env.keySet()) {
            if (name.startsWith("AGGREGATOR_")) {
                assertTrue(known.stream().map(Manifests::environmentName).anyMatch(name::equals),
                        () -> name + " is no setting of the application (AggregatorConfig): " + known);
            } else if (name.startsWith("QUARKUS_")) {
                assertTrue(QUARKUS_SETTINGS.contains(name), () -> name + " is none of the Quarkus settings docs/ describes: " + QUARKUS_SETTINGS);
            } else if (name.startsWith("KAFKA_")) {
                Set<String> clients = new HashSet<>(ConsumerConfig.configNames());
                clients.addAll(ProducerConfig.configNames());
                clients.addAll(AdminClientConfig.configNames());
                assertTrue(clients.stream().map(Manifests::environmentName).anyMatch(n -> name.equals("KAFKA_" + n)),
                        () -> name + " is no setting of the Kafka clients");
            } else {
                assertEquals("JAVA_TOOL_OPTIONS", name, "unexpected variable");
            }
        }
        // The names RBAC names too.
        String capi = manifests.setting("aggregator.capi-namespace").orElse("eksa-system");
        assertEquals("fieldRef:metadata.namespace", env.get("AGGREGATOR_INGEST_LEASE_NAMESPACE"), "the Lease in the pod's namespace");
        ShippedRbac rbac = ShippedRbac.of(manifests, manifests.applicationNamespace(), manifests.serviceAccount());
        String configMap = manifests.setting("aggregator.compatibility.configmap").orElseThrow();
        assertTrue(rbac.grants().stream().anyMatch(g -> capi.equals(g.namespace()) && g.resource().equals("configmaps")
                && g.resourceNames().equals(List.of(configMap))), "the compatibility ConfigMap " + configMap + " is readable, and only it");
        String lease = manifests.setting("aggregator.ingest.lease.name").orElse("status-aggregator-ingest");
        assertTrue(rbac.grants().stream().anyMatch(g -> manifests.applicationNamespace().equals(g.namespace()) && g.resource().equals("leases")
                && g.resourceNames().equals(List.of(lease))), "the Lease " + lease + " is renewable, and only it");
        assertTrue(rbac.grants().stream().anyMatch(g -> capi.equals(g.namespace()) && g.resource().equals("kubeadmcontrolplanes")),
                "the CAPI objects are readable in " + capi);
        for (ShippedRbac.Grant grant : rbac.grants()) {
            assertFalse(grant.apiGroup().equals("*") || grant.resource().contains("*") || grant.verb().equals("*"), "no wildcard: " + grant);
        }
    }

    @Test
    void kafkaIsReachedWithStrimzisCredentialsAndCaFromSecretsNeverLiterals() throws Exception {
        Map<String, String> env = manifests.environment();
        for (Map.Entry<String, String> variable : env.entrySet()) {
            if (variable.getKey().matches(".*(PASSWORD|JAAS|SECRET|TOKEN).*")) {
                assertTrue(variable.getValue().startsWith("valueFrom:") && variable.getValue().contains("secretKeyRef"),
                        () -> variable.getKey() + " must come from a Secret, not the manifests");
            }
        }
        assertEquals("SASL_SSL", env.get("KAFKA_SECURITY_PROTOCOL"));
        String truststore = env.get("KAFKA_SSL_TRUSTSTORE_LOCATION");
        String caVolume = mountedAt(truststore.substring(0, truststore.lastIndexOf('/')));
        JsonNode caSecret = StreamSupport.stream(podSpec().path("volumes").spliterator(), false)
                .filter(v -> caVolume.equals(v.path("name").asText())).findFirst().orElseThrow().path("secret");
        assertTrue(StreamSupport.stream(caSecret.path("items").spliterator(), false)
                .anyMatch(i -> truststore.endsWith("/" + i.path("path").asText())), "the truststore file is mounted: " + caSecret);

        // The Kafka cluster, user and topics of deploy/kafka, where they are: the names must agree.
        java.nio.file.Path kafkaDir = java.nio.file.Path.of("deploy/kafka");
        List<JsonNode> strimzi = new java.util.ArrayList<>();
        for (String file : List.of("kafka.yaml", "users.yaml", "topics.yaml")) {
            java.nio.file.Path path = kafkaDir.resolve(file);
            if (java.nio.file.Files.exists(path)) {
                try (var documents = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readerFor(JsonNode.class).<JsonNode>readValues(path.toFile())) {
                    documents.forEachRemaining(d -> {
                        if (d != null && !d.isNull()) {
                            strimzi.add(d);
                        }
                    });
                }
            }
        }
        strimzi.stream().filter(d -> "Kafka".equals(d.path("kind").asText())).findFirst().ifPresent(kafka -> {
            String name = kafka.path("metadata").path("name").asText();
            String namespace = kafka.path("metadata").path("namespace").asText();
            JsonNode listener = StreamSupport.stream(kafka.path("spec").path("kafka").path("listeners").spliterator(), false)
                    .filter(l -> l.path("tls").asBoolean() && "scram-sha-512".equals(l.path("authentication").path("type").asText()))
                    .findFirst().orElseThrow(() -> new AssertionError("no TLS + SCRAM-SHA-512 listener in deploy/kafka/kafka.yaml"));
            assertEquals(name + "-kafka-bootstrap." + namespace + ".svc:" + listener.path("port").asInt(), env.get("KAFKA_BOOTSTRAP_SERVERS"));
            assertEquals("SCRAM-SHA-512", env.get("KAFKA_SASL_MECHANISM"));
            assertEquals(name + "-cluster-ca-cert", caSecret.path("secretName").asText(), "Strimzi's cluster CA Secret");
            assertEquals(namespace, manifests.applicationNamespace(), "Strimzi's Secrets are in the pods' namespace");
        });
        String jaasSecret = StreamSupport.stream(container().path("env").spliterator(), false)
                .filter(v -> v.path("name").asText().equals("KAFKA_SASL_JAAS_CONFIG")).findFirst().orElseThrow()
                .path("valueFrom").path("secretKeyRef").path("name").asText();
        List<String> users = strimzi.stream().filter(d -> "KafkaUser".equals(d.path("kind").asText()))
                .map(u -> u.path("metadata").path("name").asText()).toList();
        if (!users.isEmpty()) {
            assertTrue(users.contains(jaasSecret), "KAFKA_SASL_JAAS_CONFIG from Secret " + jaasSecret + ", which no KafkaUser " + users + " makes");
        }
        if (strimzi.stream().anyMatch(d -> "KafkaTopic".equals(d.path("kind").asText()))) {
            assertEquals("false", env.get("AGGREGATOR_TOPICS_CREATE"), "Strimzi owns the topics");
        }
    }

    @Test
    void theCrdsForClustersLackingThemBuildWithTheStatusSubresourceAndTheReadyColumns() {
        Manifests crds = Manifests.build(Manifests.CRDS);
        assertEquals(2, crds.documents().size());
        JsonNode cluster = crd(crds, ObjectKind.EKSA_CLUSTER.plural(), ObjectKind.EKSA_CLUSTER.group(), ObjectKind.EKSA_CLUSTER.kind(),
                ObjectKind.EKSA_CLUSTER.version());
        Map<String, String> columns = new java.util.LinkedHashMap<>();
        cluster.path("additionalPrinterColumns").forEach(c -> columns.put(c.path("name").asText(), c.path("jsonPath").asText()));
        assertEquals(Map.of("Ready", ".status.conditions[?(@.type==\"Ready\")].status",
                "Reason", ".status.conditions[?(@.type==\"Ready\")].reason",
                "Age", ".metadata.creationTimestamp"), columns);
        assertEquals(List.of("Ready", "Reason", "Age"), List.copyOf(columns.keySet()));
        assertEquals("date", cluster.path("additionalPrinterColumns").get(2).path("type").asText());
        JsonNode schema = cluster.path("schema").path("openAPIV3Schema").path("properties");
        assertTrue(schema.path("spec").path("x-kubernetes-preserve-unknown-fields").asBoolean(), "EKS-A's spec kept as written");
        assertTrue(schema.path("status").path("x-kubernetes-preserve-unknown-fields").asBoolean(), "another controller's status kept");

        var releases = KubernetesResources.RELEASES;
        crd(crds, releases.getPlural(), releases.getGroup(), releases.getKind(), releases.getVersion());
    }

    private static JsonNode crd(Manifests crds, String plural, String group, String kind, String version) {
        JsonNode crd = crds.get("CustomResourceDefinition", plural + "." + group);
        assertEquals("apiextensions.k8s.io/v1", crd.path("apiVersion").asText());
        JsonNode spec = crd.path("spec");
        assertEquals(group, spec.path("group").asText());
        assertEquals("Namespaced", spec.path("scope").asText());
        assertEquals(kind, spec.path("names").path("kind").asText());
        assertEquals(plural, spec.path("names").path("plural").asText());
        JsonNode served = StreamSupport.stream(spec.path("versions").spliterator(), false)
                .filter(v -> v.path("name").asText().equals(version)).findFirst()
                .orElseThrow(() -> new AssertionError(plural + ": no version " + version));
        assertTrue(served.path("served").asBoolean() && served.path("storage").asBoolean(), plural + " " + version + " served and stored");
        assertTrue(served.path("subresources").path("status").isObject(), plural + ": the status subresource");
        assertEquals("object", served.path("schema").path("openAPIV3Schema").path("type").asText());
        return served;
    }

    /** Every key of a @ConfigMapping interface: a method is a key (its @WithName, else its name in kebab case), a nested interface a group. */
    static void keys(String prefix, Class<?> mapping, Set<String> keys) {
        for (Method method : mapping.getDeclaredMethods()) {
            if (method.isSynthetic() || method.isDefault() || java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            WithName named = method.getAnnotation(WithName.class);
            String key = prefix + "." + (named != null ? named.value() : method.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase());
            Class<?> type = method.getReturnType();
            if (type.isInterface() && type.getEnclosingClass() != null && type.getName().startsWith(AggregatorConfig.class.getName())) {
                keys(key, type, keys);
            } else {
                keys.add(key);
            }
        }
    }

    private static int containerPort(String name) {
        return StreamSupport.stream(container().path("ports").spliterator(), false).filter(p -> name.equals(p.path("name").asText()))
                .findFirst().orElseThrow(() -> new AssertionError("no container port " + name)).path("containerPort").asInt();
    }

    private static String mountedAt(String path) {
        return StreamSupport.stream(container().path("volumeMounts").spliterator(), false).filter(m -> path.equals(m.path("mountPath").asText()))
                .findFirst().orElseThrow(() -> new AssertionError("nothing mounted at " + path)).path("name").asText();
    }

    private static String volumeSource(String volume) {
        JsonNode v = StreamSupport.stream(podSpec().path("volumes").spliterator(), false).filter(x -> volume.equals(x.path("name").asText()))
                .findFirst().orElseThrow();
        return StreamSupport.stream(((Iterable<String>) v::fieldNames).spliterator(), false).filter(f -> !f.equals("name")).findFirst().orElse("");
    }

    /**
     * A NetworkPolicy's egress rules as "port/protocol destination" ("anywhere" where a rule names none); every rule must
     * name its ports, or it would let everything out.
     */
    static Set<String> egress(JsonNode policy) {
        Set<String> out = new HashSet<>();
        for (JsonNode rule : policy.path("egress")) {
            String to = rule.path("to").isMissingNode() ? "anywhere" : rule.path("to").toString();
            assertFalse(rule.path("ports").isEmpty(), "every egress rule names its ports: " + rule);
            for (JsonNode port : rule.path("ports")) {
                out.add(port.path("port").asText() + "/" + port.path("protocol").asText() + " " + to);
            }
        }
        return out;
    }

    static List<String> texts(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }
}
