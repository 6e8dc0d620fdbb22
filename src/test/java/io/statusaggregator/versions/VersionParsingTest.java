package io.statusaggregator.versions;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.EksaVersion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class VersionParsingTest {
    @ParameterizedTest
    @CsvSource({"1.27,1,27", "1.30,1,30", "2.0,2,0"})
    void specVersionsAreMajorDotMinor(String text, int major, int minor) {
        assertEquals(Optional.of(new KubernetesVersion(major, minor)), KubernetesVersion.parseSpec(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "1.27.3", "v1.27", "1.x", "", " 1.27"})
    void anythingElseIsNotASpecVersion(String text) {
        assertTrue(KubernetesVersion.parseSpec(text).isEmpty(), text);
    }

    @ParameterizedTest
    @CsvSource({"v1.27.4-eks-1-27-11,1,27", "v1.30.0,1,30", "1.29.2,1,29", "v1.28.1+k3s1,1,28"})
    void machineVersionsCompareByMajorMinor(String text, int major, int minor) {
        assertEquals(Optional.of(new KubernetesVersion(major, minor)), KubernetesVersion.parseMachine(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"latest", "v1", "vv1.27.1", "1.27.4 eks"})
    void garbageIsNotAMachineVersion(String text) {
        assertTrue(KubernetesVersion.parseMachine(text).isEmpty(), text);
    }

    @ParameterizedTest
    @CsvSource({"v0.18.3,0,18,3,''", "v0.19.0-rc.1,0,19,0,-rc.1", "v1.0.0+build.5,1,0,0,+build.5"})
    void eksaVersionsAreSemver(String text, int major, int minor, int patch, String suffix) {
        assertEquals(Optional.of(new EksaVersion(major, minor, patch, suffix)), EksaVersion.parse(text));
        assertEquals(text, EksaVersion.parse(text).orElseThrow().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.18.3", "v0.18", "v0.18.x", "release-0.18"})
    void otherFormsAreNotEksaVersions(String text) {
        assertTrue(EksaVersion.parse(text).isEmpty(), text);
    }
}
