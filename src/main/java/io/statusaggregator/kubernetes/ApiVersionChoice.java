package io.statusaggregator.kubernetes;

import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.Pure;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which API version ingest reads each kind at: always an explicit one, never the API server's preferred version (an
 * API server may prefer a version this aggregator does not read). Pure: what the API server serves and the setting
 * in, a version or why none out.
 */
@Pure
public final class ApiVersionChoice {
    private ApiVersionChoice() {
    }

    /** The setting {@code aggregator.capi.api-version}: the newest version served, or one forced. */
    public enum Setting {
        AUTO("auto"), V1BETA2("v1beta2"), V1BETA1("v1beta1");

        private final String text;

        Setting(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }

        /** The setting spelt {@code text}, in any case; empty for anything else. */
        public static Optional<Setting> parse(String text) {
            for (Setting setting : values()) {
                if (setting.text.equalsIgnoreCase(text.strip())) {
                    return Optional.of(setting);
                }
            }
            return Optional.empty();
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /**
     * What to read {@code kind} at: {@code version}, or, when it is empty, nothing this aggregator reads is served:
     * {@code problem} says what, in one line.
     */
    public record Choice(ObjectKind kind, Optional<String> version, Optional<String> problem) {
        /** Whether the version is empty because a forced setting names a version the API server does not serve. */
        public boolean forced() {
            return problem.filter(p -> p.startsWith(SETTING)).isPresent();
        }
    }

    static final String SETTING = "aggregator.capi.api-version";

    /**
     * The version to read {@code kind} at. {@link Setting#AUTO}: the newest of {@link ObjectKind#versions()} that
     * {@code served} holds. A forced version: that one, for the kinds it is a version of (a Cluster API kind that
     * serves {@code v1beta2} beside {@code v1beta1}); any other kind (EtcdadmCluster, {@code v1beta1} only) as in
     * auto.
     *
     * @param served the versions of {@code kind}'s group at which the API server lists {@code kind}'s resource
     */
    public static Choice decide(ObjectKind kind, Set<String> served, Setting setting) {
        String name = kind.plural() + "." + kind.group();
        if (setting != Setting.AUTO && kind.versions().contains(setting.text())) {
            if (served.contains(setting.text())) {
                return new Choice(kind, Optional.of(setting.text()), Optional.empty());
            }
            List<String> readable = kind.versions().stream().filter(served::contains).toList();
            String where = readable.isEmpty() ? "at none of " + String.join(", ", kind.versions())
                    : "at " + String.join(" and ", readable) + " only";
            return new Choice(kind, Optional.empty(), Optional.of("%s is %s, but the API server serves %s %s"
                    .formatted(SETTING, setting.text(), name, where)));
        }
        for (String version : kind.versions()) {
            if (served.contains(version)) {
                return new Choice(kind, Optional.of(version), Optional.empty());
            }
        }
        return new Choice(kind, Optional.empty(), Optional.of(name + "/" + String.join(" or ", kind.versions())));
    }

    /** {@link #decide} for each kind of {@code served}, in its order. */
    public static Map<ObjectKind, Choice> decide(Map<ObjectKind, Set<String>> served, Setting setting) {
        Map<ObjectKind, Choice> choices = new LinkedHashMap<>();
        served.forEach((kind, versions) -> choices.put(kind, decide(kind, versions, setting)));
        return choices;
    }

    /**
     * The versions to read at from now on: each kind at its choice, or, where the choice has no version, at the one
     * it is read at now (its informer keeps trying; the problem is reported, not acted on).
     */
    public static Map<ObjectKind, String> next(Map<ObjectKind, String> current, Collection<Choice> choices) {
        Map<ObjectKind, String> next = new LinkedHashMap<>(current);
        for (Choice choice : choices) {
            choice.version().ifPresent(version -> next.put(choice.kind(), version));
        }
        return next;
    }

    /**
     * The version each kind is read at before anything is known: the forced one, else the oldest, which every Cluster
     * API release up to v1.15 serves.
     */
    public static Map<ObjectKind, String> initial(Collection<ObjectKind> kinds, Setting setting) {
        Map<ObjectKind, String> initial = new LinkedHashMap<>();
        for (ObjectKind kind : kinds) {
            initial.put(kind, setting != Setting.AUTO && kind.versions().contains(setting.text()) ? setting.text()
                    : kind.version());
        }
        return initial;
    }
}
