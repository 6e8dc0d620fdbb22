package io.statusaggregator.model;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The names the Kubernetes API accepts, checked before a name from outside (a URL, an argument, a record key) is used
 * in a request: a namespace is an RFC 1123 label, an object's name an RFC 1123 subdomain. A name that is neither
 * could only be another request's path in disguise ({@code ?}, {@code #}, {@code /}, {@code ..}).
 */
public final class KubernetesNames {
    private static final String LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final Pattern NAMESPACE = Pattern.compile(LABEL);
    private static final Pattern NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
    static final int NAMESPACE_MAX = 63;
    static final int NAME_MAX = 253;
    /** How much of a rejected value a message repeats. */
    private static final int SHOWN = 64;

    private KubernetesNames() {
    }

    /** Why {@code namespace} is no namespace's name, or empty when it is one. */
    public static Optional<String> namespaceProblem(String namespace) {
        return problem("namespace", namespace, NAMESPACE, NAMESPACE_MAX,
                "lowercase letters, digits and '-', starting and ending with a letter or digit");
    }

    /** Why {@code name} is no object's name, or empty when it is one. */
    public static Optional<String> nameProblem(String name) {
        return problem("name", name, NAME, NAME_MAX,
                "lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit");
    }

    private static Optional<String> problem(String what, String value, Pattern pattern, int max, String rule) {
        if (value == null || value.isEmpty()) {
            return Optional.of(what + " is empty");
        }
        if (value.length() > max) {
            return Optional.of(what + " " + shown(value) + " is longer than " + max + " characters");
        }
        if (!pattern.matcher(value).matches()) {
            return Optional.of(what + " " + shown(value) + " is not a Kubernetes " + what + ": " + rule);
        }
        return Optional.empty();
    }

    /** The value quoted for a message: cut short, and nothing that is not printable ASCII repeated as it is. */
    static String shown(String value) {
        StringBuilder shown = new StringBuilder("\"");
        value.codePoints().limit(SHOWN).forEach(c -> {
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                shown.appendCodePoint(c);
            } else {
                shown.append(String.format(c > 0xffff ? "\\u{%x}" : "\\u%04x", c));
            }
        });
        return shown.append(value.codePointCount(0, value.length()) > SHOWN ? "\"..." : "\"").toString();
    }
}
