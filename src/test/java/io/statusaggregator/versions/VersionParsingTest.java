package io.statusaggregator.versions;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.EksaVersion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
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

    /**
     * The versions are read by hand (every Machine record has one); they mean what these expressions say, on the
     * forms above and on random strings made of the characters that matter.
     */
    @Test
    void readByHandAsTheGrammarSays() {
        Pattern spec = Pattern.compile("(\\d{1,4})\\.(\\d{1,4})");
        Pattern machine = Pattern.compile("v?(\\d{1,4})\\.(\\d{1,4})(?:\\.\\d{1,6})?(?:[-+][0-9A-Za-z.+-]*)?");
        String alphabet = "0123456789....v-+aZ ";
        Random random = new Random(20261126);
        int versions = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder text = new StringBuilder(random.nextBoolean() ? "v1." : "");
            for (int length = random.nextInt(14); length > 0; length--) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String candidate = text.toString();
            assertEquals(expected(spec, candidate), KubernetesVersion.parseSpec(candidate), candidate);
            assertEquals(expected(machine, candidate), KubernetesVersion.parseMachine(candidate), candidate);
            versions += KubernetesVersion.parseMachine(candidate).isPresent() ? 1 : 0;
        }
        assertTrue(versions > 1_000, "many of the strings are versions: " + versions);
    }

    private static Optional<KubernetesVersion> expected(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.matches() ? Optional.of(new KubernetesVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))))
                : Optional.empty();
    }
}
