package io.statusaggregator.versions.json;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.EksaVersion;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.Compatibility.CiliumFrom;
import io.statusaggregator.versions.Compatibility.ReleaseLine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the compatibility document ({@code compatibility.yaml}); a malformed one is rejected whole, naming the entry.
 */
public final class CompatibilityReader {
    public static final String BUILT_IN = "/compatibility.yaml";

    private CompatibilityReader() {
    }

    /** The document shipped in the application's resources. */
    public static Compatibility builtIn() {
        try (InputStream in = CompatibilityReader.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException("resource " + BUILT_IN + " is missing from the application");
            }
            return read(new YAMLMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + BUILT_IN, e);
        }
    }

    public static Compatibility read(JsonNode document) {
        String version = text(document, "version", "the document");
        List<ReleaseLine> lines = new ArrayList<>();
        for (JsonNode line : document.path("releaseLines")) {
            String eksa = text(line, "eksa", "a release line");
            String where = "release line " + eksa;
            List<KubernetesVersion> kubernetes = new ArrayList<>();
            for (JsonNode k : line.path("kubernetes")) {
                kubernetes.add(KubernetesVersion.parseSpec(k.asText())
                        .orElseThrow(() -> new IllegalArgumentException(where + ": bad Kubernetes version " + k)));
            }
            List<CiliumFrom> cilium = new ArrayList<>();
            for (JsonNode entry : line.path("cilium")) {
                String from = text(entry, "from", where);
                EksaVersion release = EksaVersion.parse(from)
                        .filter(r -> r.minorLine().equals(eksa))
                        .orElseThrow(() -> new IllegalArgumentException(where + ": cilium entry from " + from
                                + " is not a release of " + eksa));
                Optional<String> shipped = entry.hasNonNull("version")
                        ? Optional.of(entry.get("version").asText())
                        : Optional.empty();
                cilium.add(new CiliumFrom(release, shipped));
            }
            lines.add(new ReleaseLine(eksa, kubernetes, cilium));
        }
        return new Compatibility(version, lines);
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new IllegalArgumentException(where + ": " + field + " must be a non-empty string");
        }
        return value.asText();
    }
}
