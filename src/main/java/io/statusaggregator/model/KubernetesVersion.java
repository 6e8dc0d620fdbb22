package io.statusaggregator.model;

import java.util.Optional;

/**
 * A Kubernetes version as far as the rules compare it: major and minor. The spec writes {@code "1.27"}; a Machine's
 * {@code spec.version} is like {@code v1.27.4-eks-1-27-11}.
 */
public record KubernetesVersion(int major, int minor) implements Comparable<KubernetesVersion> {
    /** Parses the spec's form, {@code MAJOR.MINOR} (each of 1 to 4 digits). */
    public static Optional<KubernetesVersion> parseSpec(String text) {
        return parse(text, false);
    }

    /**
     * Parses a Machine's or node's form, {@code vMAJOR.MINOR.PATCH} with an optional build suffix: an optional
     * {@code v}, 1 to 4 digits, a dot, 1 to 4 digits, optionally a dot and 1 to 6 digits, optionally {@code -} or
     * {@code +} and letters, digits, dots, pluses and minuses.
     */
    public static Optional<KubernetesVersion> parseMachine(String text) {
        return parse(text, true);
    }

    /** By hand, not with a regular expression: every Machine record read has a version parsed. */
    private static Optional<KubernetesVersion> parse(String text, boolean machine) {
        int n = text.length();
        int i = machine && n > 0 && text.charAt(0) == 'v' ? 1 : 0;
        int majorEnd = digits(text, i);
        if (majorEnd - i < 1 || majorEnd - i > 4 || majorEnd >= n || text.charAt(majorEnd) != '.') {
            return Optional.empty();
        }
        int minorEnd = digits(text, majorEnd + 1);
        if (minorEnd - majorEnd - 1 < 1 || minorEnd - majorEnd - 1 > 4) {
            return Optional.empty();
        }
        int end = minorEnd;
        if (machine) {
            if (end < n && text.charAt(end) == '.') {
                int patchEnd = digits(text, end + 1);
                if (patchEnd - end - 1 < 1 || patchEnd - end - 1 > 6) {
                    return Optional.empty();
                }
                end = patchEnd;
            }
            if (end < n && (text.charAt(end) == '-' || text.charAt(end) == '+')) {
                end++;
                while (end < n && buildCharacter(text.charAt(end))) {
                    end++;
                }
            }
        }
        if (end != n) {
            return Optional.empty();
        }
        return Optional.of(new KubernetesVersion(Integer.parseInt(text, i, majorEnd, 10),
                Integer.parseInt(text, majorEnd + 1, minorEnd, 10)));
    }

    /** Where the run of ASCII digits from {@code from} ends. */
    private static int digits(String text, int from) {
        int i = from;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    private static boolean buildCharacter(char c) {
        return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '.' || c == '+' || c == '-';
    }

    @Override
    public int compareTo(KubernetesVersion other) {
        return major != other.major ? Integer.compare(major, other.major) : Integer.compare(minor, other.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
