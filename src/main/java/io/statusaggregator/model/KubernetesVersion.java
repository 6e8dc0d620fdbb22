package io.statusaggregator.model;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes version as far as the rules compare it: major and minor. The spec writes {@code "1.27"}; a Machine's
 * {@code spec.version} is like {@code v1.27.4-eks-1-27-11}.
 */
public record KubernetesVersion(int major, int minor) implements Comparable<KubernetesVersion> {
    private static final Pattern SPEC = Pattern.compile("(\\d{1,4})\\.(\\d{1,4})");
    private static final Pattern MACHINE = Pattern.compile("v?(\\d{1,4})\\.(\\d{1,4})(?:\\.\\d{1,6})?(?:[-+][0-9A-Za-z.+-]*)?");

    /** Parses the spec's form, {@code MAJOR.MINOR}. */
    public static Optional<KubernetesVersion> parseSpec(String text) {
        return parse(SPEC, text);
    }

    /** Parses a Machine's or node's form, {@code vMAJOR.MINOR.PATCH} with an optional build suffix. */
    public static Optional<KubernetesVersion> parseMachine(String text) {
        return parse(MACHINE, text);
    }

    private static Optional<KubernetesVersion> parse(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new KubernetesVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
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
