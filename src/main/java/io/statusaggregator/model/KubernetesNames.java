package io.statusaggregator.model;

import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The names the Kubernetes API accepts, checked before a name from outside (a URL, an argument, a record key) is used
 * in a request: a namespace is an RFC 1123 label, an object's name an RFC 1123 subdomain. A name that is neither
 * could only be another request's path in disguise ({@code ?}, {@code #}, {@code /}, {@code ..}).
 */
public final class KubernetesNames {
    private static final String LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    /** The rules as regular expressions; what {@link #isLabel} and {@link #isName} check by hand. */
    static final Pattern NAMESPACE = Pattern.compile(LABEL);
    static final Pattern NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
    static final int NAMESPACE_MAX = 63;
    static final int NAME_MAX = 253;
    /** How much of a rejected value a message repeats. */
    private static final int SHOWN = 64;

    private KubernetesNames() {
    }

    /** Why {@code namespace} is no namespace's name, or empty when it is one. */
    public static Optional<String> namespaceProblem(String namespace) {
        return problem("namespace", namespace, value -> isLabel(value, 0, value.length()), NAMESPACE_MAX,
                "lowercase letters, digits and '-', starting and ending with a letter or digit");
    }

    /** Why {@code name} is no object's name, or empty when it is one. */
    public static Optional<String> nameProblem(String name) {
        return problem("name", name, KubernetesNames::isName, NAME_MAX,
                "lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit");
    }

    private static Optional<String> problem(String what, String value, Predicate<String> valid, int max, String rule) {
        if (value == null || value.isEmpty()) {
            return Optional.of(what + " is empty");
        }
        if (value.length() > max) {
            return Optional.of(what + " " + shown(value) + " is longer than " + max + " characters");
        }
        if (!valid.test(value)) {
            return Optional.of(what + " " + shown(value) + " is not a Kubernetes " + what + ": " + rule);
        }
        return Optional.empty();
    }

    /**
     * The patterns above, by hand: every record key is checked, and a regular expression's match was a measurable part
     * of aggregation's work per record. {@code KubernetesNamesTest} holds the two to the same answers.
     */
    static boolean isName(String value) {
        int start = 0;
        for (int dot = value.indexOf('.'); dot >= 0; dot = value.indexOf('.', start)) {
            if (!isLabel(value, start, dot)) {
                return false;
            }
            start = dot + 1;
        }
        return isLabel(value, start, value.length());
    }

    /**
     * Whether {@code value[from, to)} is an RFC 1123 label: lowercase letters, digits and '-', alphanumeric at both
     * ends.
     */
    static boolean isLabel(String value, int from, int to) {
        if (to <= from || !alphanumeric(value.charAt(from)) || !alphanumeric(value.charAt(to - 1))) {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            char c = value.charAt(i);
            if (c != '-' && !alphanumeric(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean alphanumeric(char c) {
        return c >= 'a' && c <= 'z' || c >= '0' && c <= '9';
    }

    /**
     * A value from outside quoted for a message: cut short, and nothing that is not printable ASCII repeated as it is,
     * so that an answer or a log line never carries a caller's text whole.
     */
    public static String shown(String value) {
        return "\"" + printable(value, SHOWN, true)
                + (value.codePointCount(0, value.length()) > SHOWN ? "\"..." : "\"");
    }

    /**
     * Text from outside (a parser's message that repeats what it read) fit for a log line or a message: at most
     * {@code max} characters of it, each that is not printable ASCII written as its code.
     */
    public static String printable(String text, int max) {
        String shown = printable(text, max, false);
        return text.codePointCount(0, text.length()) > max ? shown + "..." : shown;
    }

    private static String printable(String value, int max, boolean quoted) {
        StringBuilder shown = new StringBuilder();
        value.codePoints().limit(max).forEach(c -> {
            if (c >= 0x20 && c < 0x7f && !(quoted && (c == '"' || c == '\\'))) {
                shown.appendCodePoint(c);
            } else {
                shown.append(String.format(c > 0xffff ? "\\u{%x}" : "\\u%04x", c));
            }
        });
        return shown.toString();
    }
}
