package io.statusaggregator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs the {@code compute} command in-process on a YAML text, for tests that feed it many inputs. */
public final class ComputeRunner {
    private ComputeRunner() {
    }

    public record Result(int exitCode, String out, String err) {
        /** The printed documents, in order. */
        public List<JsonNode> documents() throws IOException {
            List<JsonNode> documents = new ArrayList<>();
            try (MappingIterator<JsonNode> values = new YAMLMapper().readerFor(JsonNode.class).readValues(out)) {
                while (values.hasNextValue()) {
                    documents.add(values.nextValue());
                }
            }
            return documents;
        }

        /** The status of the cluster {@code cluster} names: {@code name}, or {@code namespace/name}. */
        public Optional<JsonNode> statusOf(String cluster) throws IOException {
            return documents().stream()
                    .filter(d -> names(d.path("metadata"), cluster))
                    .map(d -> d.get("status"))
                    .findFirst();
        }
    }

    /** Whether {@code metadata} is of the object {@code cluster} names: {@code name}, or {@code namespace/name}. */
    public static boolean names(JsonNode metadata, String cluster) {
        String name = metadata.path("name").asText();
        return cluster.equals(name) || cluster.equals(metadata.path("namespace").asText() + "/" + name);
    }

    public static Result compute(String yaml, Instant now, String capiNamespace) throws IOException {
        ComputeCommand command = new ComputeCommand();
        command.now = now;
        command.capiNamespace = capiNamespace;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exitCode = command.compute(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exitCode, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A {@code kind: List} of ConfigMaps (a kind the rules skip) of at least {@code bytes}, as kubectl prints one. */
    public static String configMapList(int bytes, int dataCharacters) {
        StringBuilder list = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
        for (int i = 0; list.length() < bytes; i++) {
            list.append("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {namespace: default, name: cm-").append(i)
                    .append("}\n  data: {k: \"").append("x".repeat(dataCharacters)).append("\"}\n");
        }
        return list.toString();
    }
}
