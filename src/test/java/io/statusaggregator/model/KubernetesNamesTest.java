package io.statusaggregator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KubernetesNamesTest {
    @Test
    void namespacesAreLabelsAndNamesAreSubdomains() {
        for (String good : List.of("a", "eksa-system", "a1", "1a", "x".repeat(63))) {
            assertEquals(Optional.empty(), KubernetesNames.namespaceProblem(good), good);
            assertEquals(Optional.empty(), KubernetesNames.nameProblem(good), good);
        }
        assertEquals(Optional.empty(), KubernetesNames.nameProblem("prod.eu-west-1"));
        assertTrue(KubernetesNames.namespaceProblem("prod.eu").isPresent(), "a dot is no part of a label");
        assertEquals(Optional.empty(), KubernetesNames.nameProblem("x".repeat(253)));
        for (String bad : List.of("", "A", "-a", "a-", "a_b", "a..b", ".a", "a.", "a/b", "a?b", "a#b", "..", "a b", "ü", "a\u0000")) {
            assertTrue(KubernetesNames.nameProblem(bad).isPresent(), bad);
            assertTrue(KubernetesNames.namespaceProblem(bad).isPresent(), bad);
        }
        assertEquals(Optional.of("namespace \"" + "x".repeat(64) + "\"... is longer than 63 characters"),
                KubernetesNames.namespaceProblem("x".repeat(64 + 10)));
        assertTrue(KubernetesNames.nameProblem("x".repeat(254)).orElseThrow().endsWith("is longer than 253 characters"));
    }

    @Test
    void aMessageRepeatsAtMostSixtyFourCharactersAndNothingUnprintable() {
        assertEquals(Optional.of("name \"a\\u000ab\\u0000\\u00fc\\u0022\" is not a Kubernetes name: lowercase letters, digits, '-' and '.', "
                + "each part starting and ending with a letter or digit"), KubernetesNames.nameProblem("a\nb\u0000ü\""));
    }

    @Test
    void keysFromOutsideAreCheckedAsKubernetesNames() {
        assertEquals(Optional.of(new ObjectKey("default", "alpha")), ObjectKey.parse("default/alpha"));
        for (String bad : List.of("alpha", "default/", "/alpha", "a/b/c", "default/bravo?x=1", "default/../bravo", "Default/alpha")) {
            assertEquals(Optional.empty(), ObjectKey.parse(bad), bad);
            assertTrue(ObjectKey.problemOf(bad).isPresent(), bad);
        }
        assertEquals(Optional.of("expected NAMESPACE/NAME, got \"alpha\""), ObjectKey.problemOf("alpha"));
        assertEquals(Optional.of("namespace is empty"), ObjectKey.problemOf("/alpha"));
    }

    @Test
    void theHandWrittenChecksAnswerAsTheRegularExpressionsDo() {
        java.util.Random random = new java.util.Random(1123);
        String alphabet = "abz09-.A_ /";
        int names = 0;
        for (int n = 0; n < 50_000; n++) {
            StringBuilder value = new StringBuilder();
            for (int i = random.nextInt(9); i > 0; i--) {
                value.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String text = value.toString();
            assertEquals(KubernetesNames.NAME.matcher(text).matches(), KubernetesNames.isName(text), "name \"" + text + "\"");
            assertEquals(KubernetesNames.NAMESPACE.matcher(text).matches(), KubernetesNames.isLabel(text, 0, text.length()),
                    "namespace \"" + text + "\"");
            names += KubernetesNames.isName(text) ? 1 : 0;
        }
        assertTrue(names > 1_000, "valid names among the samples: " + names); // the samples test both answers
    }
}
