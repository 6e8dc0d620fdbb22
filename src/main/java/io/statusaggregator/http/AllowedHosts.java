package io.statusaggregator.http;

import io.statusaggregator.model.Pure;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which {@code Host} a request may name to be served, any port: a page on another site that a browser is led to send
 * to this server under a name of its own (DNS rebinding) names that other host. Pure: the header's value in, yes or
 * no out.
 */
@Pure
public final class AllowedHosts {
    /** The names of this machine's loopback interface: all that the embedded default answers. */
    public static final List<String> LOOPBACK = List.of("localhost", "127.0.0.1", "[::1]");
    private static final AllowedHosts ANY = new AllowedHosts(Optional.empty());

    /** The names, lower case; empty: any. */
    private final Optional<Set<String>> names;

    private AllowedHosts(Optional<Set<String>> names) {
        this.names = names;
    }

    public static AllowedHosts any() {
        return ANY;
    }

    public static AllowedHosts loopback() {
        return of(LOOPBACK);
    }

    /** The names given (host names or IP addresses, an IPv6 one in brackets); {@code *} among them: any. */
    public static AllowedHosts of(List<String> names) {
        if (names.stream().anyMatch(name -> name.trim().equals("*"))) {
            return ANY;
        }
        return new AllowedHosts(Optional.of(names.stream().map(name -> name.trim().toLowerCase(Locale.ROOT))
                .filter(name -> !name.isEmpty()).collect(Collectors.toUnmodifiableSet())));
    }

    public boolean anyHost() {
        return names.isEmpty();
    }

    /** Whether a request whose {@code Host} header is {@code header} (null when it has none) is served. */
    public boolean admits(String header) {
        if (names.isEmpty()) {
            return true;
        }
        return header != null && host(header.trim())
                .map(host -> names.get().contains(host.toLowerCase(Locale.ROOT))).orElse(false);
    }

    /** The host part of a {@code Host} header, without its port; empty when the header is no host[:port]. */
    static Optional<String> host(String header) {
        if (header.startsWith("[")) {
            int end = header.indexOf(']');
            if (end < 0 || !port(header.substring(end + 1))) {
                return Optional.empty();
            }
            return Optional.of(header.substring(0, end + 1));
        }
        int colon = header.indexOf(':');
        String host = colon < 0 ? header : header.substring(0, colon);
        if (host.isEmpty() || (colon >= 0 && !port(header.substring(colon)))) {
            return Optional.empty();
        }
        return Optional.of(host);
    }

    /** Nothing, or {@code :} and a port number. */
    private static boolean port(String rest) {
        if (rest.isEmpty()) {
            return true;
        }
        if (rest.charAt(0) != ':' || rest.length() < 2 || rest.length() > 6) {
            return false;
        }
        return rest.substring(1).chars().allMatch(c -> c >= '0' && c <= '9');
    }

    @Override
    public String toString() {
        return names.map(n -> String.join(", ", n.stream().sorted().toList())).orElse("any host");
    }
}
