package io.statusaggregator.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The shipped manifests as the API server would get them: {@code kubectl kustomize DIR}, every document parsed. Tests
 * read the application's manifests (deploy/kubernetes) and its RBAC from here, never from a copy.
 */
public final class Manifests {
    public static final Path APPLICATION = Path.of("deploy/kubernetes");
    public static final Path CRDS = APPLICATION.resolve("crds");
    private static final YAMLMapper YAML = new YAMLMapper();

    private final List<JsonNode> documents;

    private Manifests(List<JsonNode> documents) {
        this.documents = documents;
    }

    /** {@code kubectl kustomize directory}, parsed; fails the test when kubectl is missing or the build fails. */
    public static Manifests build(Path directory) {
        String kubectl = kubectl();
        try {
            Path output = Files.createTempFile("kustomize", ".yaml");
            Path errors = Files.createTempFile("kustomize", ".err");
            try {
                Process process = new ProcessBuilder(kubectl, "kustomize", directory.toString())
                        .redirectOutput(output.toFile()).redirectError(errors.toFile()).start();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    fail("kubectl kustomize " + directory + " did not finish within 60 s");
                }
                assertEquals(0, process.exitValue(), () -> "kubectl kustomize " + directory + " failed: " + read(errors));
                return parse(output);
            } finally {
                Files.deleteIfExists(output);
                Files.deleteIfExists(errors);
            }
        } catch (IOException e) {
            throw new AssertionError("kubectl kustomize " + directory + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** A file of YAML documents as it is, without kustomize (what Quarkus generates in target/kubernetes). */
    public static Manifests parse(Path file) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (MappingIterator<JsonNode> parsed = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
            while (parsed.hasNext()) {
                JsonNode document = parsed.next();
                if (document != null && !document.isNull() && !document.isMissingNode()) {
                    documents.add(document);
                }
            }
        }
        return new Manifests(documents);
    }

    /** kubectl: see {@link io.statusaggregator.Kubectl#path()}. */
    static String kubectl() {
        return io.statusaggregator.Kubectl.path();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    public List<JsonNode> documents() {
        return documents;
    }

    public Stream<JsonNode> ofKind(String kind) {
        return documents.stream().filter(d -> kind.equals(d.path("kind").asText()));
    }

    public Optional<JsonNode> find(String kind, String name) {
        return ofKind(kind).filter(d -> name.equals(d.path("metadata").path("name").asText())).findFirst();
    }

    public JsonNode get(String kind, String name) {
        return find(kind, name).orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the manifests"));
    }

    /** The one Deployment. */
    public JsonNode deployment() {
        List<JsonNode> deployments = ofKind("Deployment").toList();
        assertEquals(1, deployments.size(), "one Deployment");
        return deployments.get(0);
    }

    public static String namespace(JsonNode object) {
        return object.path("metadata").path("namespace").asText(null);
    }

    /** The Deployment's namespace: where the application runs, its ServiceAccount and its Lease are. */
    public String applicationNamespace() {
        return namespace(deployment());
    }

    public String serviceAccount() {
        return deployment().path("spec").path("template").path("spec").path("serviceAccountName").asText(null);
    }

    /** The application container's environment: its ConfigMaps' entries (envFrom), then env; a fieldRef as "fieldRef:PATH". */
    public Map<String, String> environment() {
        JsonNode container = deployment().path("spec").path("template").path("spec").path("containers").get(0);
        Map<String, String> environment = new LinkedHashMap<>();
        for (JsonNode from : container.path("envFrom")) {
            String configMap = from.path("configMapRef").path("name").asText(null);
            if (configMap != null) {
                get("ConfigMap", configMap).path("data").properties().forEach(e -> environment.put(e.getKey(), e.getValue().asText()));
            }
        }
        for (JsonNode variable : container.path("env")) {
            String value = variable.has("value") ? variable.path("value").asText()
                    : variable.path("valueFrom").has("fieldRef") ? "fieldRef:" + variable.path("valueFrom").path("fieldRef").path("fieldPath").asText()
                    : "valueFrom:" + variable.path("valueFrom");
            environment.put(variable.path("name").asText(), value);
        }
        return environment;
    }

    /** The setting {@code key} (e.g. aggregator.capi-namespace) as the environment gives it, by the README's naming. */
    public Optional<String> setting(String key) {
        return Optional.ofNullable(environment().get(environmentName(key)));
    }

    /** README, Configuration: upper case, `.` and `-` as `_`. */
    public static String environmentName(String key) {
        return key.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_');
    }
}
