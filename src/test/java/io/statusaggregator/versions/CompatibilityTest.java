package io.statusaggregator.versions;

import io.statusaggregator.versions.json.CompatibilityReader;

import io.statusaggregator.model.EksaVersion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CompatibilityTest {
    private static Optional<String> cilium(Compatibility data, String release) {
        return data.ciliumFor(EksaVersion.parse(release).orElseThrow());
    }

    @Test
    void theBuiltInDocumentLoadsAndCoversTheReleaseLines() {
        Compatibility data = CompatibilityReader.builtIn();
        assertFalse(data.version().isEmpty());
        assertTrue(data.releaseLines().stream().anyMatch(l -> l.eksa().equals("v0.16")));
        assertEquals(Optional.of("v1.11.15-eksa.1"), cilium(data, "v0.16.3"));
    }

    @Test
    void aPatchReleaseTakesTheEntryItFollows() throws Exception {
        Compatibility data = CompatibilityReader.read(new YAMLMapper().readTree("""
                version: test
                releaseLines:
                  - eksa: v0.20
                    kubernetes: ["1.29", "1.30"]
                    cilium:
                      - {from: v0.20.0, version: null}
                      - {from: v0.20.7, version: v1.13.20-eksa.1}
                      - {from: v0.20.9, version: v1.13.21-eksa.5}
                """));
        assertEquals(Optional.empty(), cilium(data, "v0.20.3"), "unknown before v0.20.7");
        assertEquals(Optional.of("v1.13.20-eksa.1"), cilium(data, "v0.20.7"));
        assertEquals(Optional.of("v1.13.20-eksa.1"), cilium(data, "v0.20.8"));
        assertEquals(Optional.of("v1.13.21-eksa.5"), cilium(data, "v0.20.12"));
        assertEquals(Optional.empty(), cilium(data, "v0.21.0"), "a release line the data does not hold");
    }

    @Test
    void anEntryOfAnotherReleaseLineIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CompatibilityReader.read(new YAMLMapper().readTree("""
                version: test
                releaseLines:
                  - eksa: v0.20
                    cilium: [{from: v0.21.0, version: v1.14.12-eksa.3}]
                """)));
        assertTrue(e.getMessage().contains("release line v0.20"), e.getMessage());
    }
}
