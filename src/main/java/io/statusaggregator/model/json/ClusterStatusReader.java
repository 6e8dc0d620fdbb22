package io.statusaggregator.model.json;

import static io.statusaggregator.model.json.StrictTokens.array;
import static io.statusaggregator.model.json.StrictTokens.count;
import static io.statusaggregator.model.json.StrictTokens.generation;
import static io.statusaggregator.model.json.StrictTokens.nextObject;
import static io.statusaggregator.model.json.StrictTokens.object;
import static io.statusaggregator.model.json.StrictTokens.text;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.CniState;
import io.statusaggregator.model.ClusterStatus.DefaultCni;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.ClusterStatus.WorkerNodeGroupStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.json.StrictTokens.GiveUp;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The status an EKS-A Cluster shows, read from the streaming parser as {@link ClusterStatusDecoder}
 * reads it from the tree: for {@link EksaClusterReader}, which gives up where this does.
 */
final class ClusterStatusReader {
    private static final int OBSERVED_GENERATION = 1, FAILURE_REASON = 1 << 1, FAILURE_MESSAGE = 1 << 2,
            DEFAULT_CNI = 1 << 3, CONDITIONS = 1 << 4, WORKER_NODE_GROUPS = 1 << 5, VERSIONS = 1 << 6;

    private ClusterStatusReader() {
    }

    /** The status whose object {@code parser} has just entered; a field it cannot read as the tree would gives up. */
    static ClusterStatus read(JsonParser parser) throws IOException, GiveUp {
        long observedGeneration = -1;
        String reason = null, message = null;
        Optional<DefaultCni> defaultCni = Optional.empty();
        List<Condition> conditions = List.of();
        List<WorkerNodeGroupStatus> groups = List.of();
        Versions versions = Versions.NONE;
        int seen = 0;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            int bit = switch (field) {
                case "observedGeneration" -> OBSERVED_GENERATION;
                case "failureReason" -> FAILURE_REASON;
                case "failureMessage" -> FAILURE_MESSAGE;
                case "defaultCNI" -> DEFAULT_CNI;
                case "conditions" -> CONDITIONS;
                case "workerNodeGroups" -> WORKER_NODE_GROUPS;
                case "versions" -> VERSIONS;
                default -> 0;
            };
            seen = once(seen, bit);
            switch (bit) {
                case OBSERVED_GENERATION -> observedGeneration = generation(parser, value);
                case FAILURE_REASON -> reason = text(parser, value);
                case FAILURE_MESSAGE -> message = text(parser, value);
                case DEFAULT_CNI -> defaultCni = object(value) ? defaultCni(parser) : Optional.empty();
                case CONDITIONS -> conditions = conditions(parser, value);
                case WORKER_NODE_GROUPS -> groups = workerNodeGroups(parser, value);
                case VERSIONS -> versions = object(value) ? versions(parser) : Versions.NONE;
                default -> parser.skipChildren();
            }
        }
        Optional<String> failureReason = Optional.ofNullable(reason).filter(r -> !r.isEmpty());
        Optional<String> failureMessage = Optional.ofNullable(message).filter(m -> !m.isEmpty());
        Optional<Failure> failure = failureReason.isPresent() || failureMessage.isPresent()
                ? Optional.of(new Failure(failureReason.orElse(""), failureMessage.orElse("")))
                : Optional.empty();
        return new ClusterStatus(
                Math.max(observedGeneration, 0L), failure, defaultCni, conditions, groups, versions);
    }

    /** Marks {@code bit} seen; a field seen twice (the tree keeps the last) gives up. */
    private static int once(int seen, int bit) throws GiveUp {
        if ((seen & bit) != 0) {
            throw GiveUp.INSTANCE;
        }
        return seen | bit;
    }

    /**
     * The string fields {@code names} of an object, in that order (null where absent); repeated or not a string
     * gives up.
     */
    private static String[] strings(JsonParser parser, String[] names) throws IOException, GiveUp {
        String[] values = new String[names.length];
        int seen = 0;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            int index = indexOf(names, field);
            if (index < 0) {
                parser.skipChildren();
                continue;
            }
            seen = once(seen, 1 << index);
            values[index] = text(parser, value);
        }
        return values;
    }

    private static int indexOf(String[] names, String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }

    private static final String[] DEFAULT_CNI_FIELDS = {"name", "version", "status"};

    private static Optional<DefaultCni> defaultCni(JsonParser parser) throws IOException, GiveUp {
        String[] cni = strings(parser, DEFAULT_CNI_FIELDS);
        Optional<Cni> name = cni[0] == null ? Optional.empty() : Cni.of(cni[0]);
        if (name.isEmpty()) {
            return Optional.empty();
        }
        CniState state = "Applied".equals(cni[2]) ? CniState.APPLIED : CniState.NOT_APPLIED;
        return Optional.of(new DefaultCni(name.get(), orEmpty(cni[1]), state));
    }

    private static final String[] CONDITION_FIELDS = {
        "type", "status", "lastTransitionTime", "reason", "message", "severity"
    };

    /** Conditions of types this aggregator does not own, and ones without a transition time, are skipped. */
    private static List<Condition> conditions(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (!array(value)) {
            return List.of();
        }
        List<Condition> conditions = new ArrayList<>(8);
        while (nextObject(parser)) {
            String[] condition = strings(parser, CONDITION_FIELDS);
            Optional<ConditionType> type = condition[0] == null ? Optional.empty() : ConditionType.of(condition[0]);
            Optional<ConditionStatus> status =
                    condition[1] == null ? Optional.empty() : ConditionStatus.of(condition[1]);
            if (type.isEmpty() || status.isEmpty() || condition[2] == null) {
                continue;
            }
            Instant lastTransitionTime;
            try {
                lastTransitionTime = TransitionTimes.parse(condition[2]);
            } catch (DateTimeParseException e) {
                throw GiveUp.INSTANCE; // the tree names the field
            }
            conditions.add(new Condition(
                    type.get(),
                    status.get(),
                    orEmpty(condition[3]),
                    orEmpty(condition[4]),
                    condition[5] == null
                            ? Severity.NONE
                            : Severity.of(condition[5]).orElse(Severity.NONE),
                    lastTransitionTime));
        }
        return conditions;
    }

    private static List<WorkerNodeGroupStatus> workerNodeGroups(JsonParser parser, JsonToken value)
            throws IOException, GiveUp {
        if (!array(value)) {
            return List.of();
        }
        List<WorkerNodeGroupStatus> groups = new ArrayList<>(4);
        while (nextObject(parser)) {
            String name = null, version = null;
            int replicas = 0, ready = 0, upToDate = 0;
            int seen = 0;
            String field;
            while ((field = parser.nextFieldName()) != null) {
                JsonToken item = parser.nextToken();
                switch (field) {
                    case "name" -> {
                        seen = once(seen, 1);
                        name = text(parser, item);
                    }
                    case "kubernetesVersion" -> {
                        seen = once(seen, 1 << 1);
                        version = text(parser, item);
                    }
                    case "replicas" -> {
                        seen = once(seen, 1 << 2);
                        replicas = count(parser, item);
                    }
                    case "readyReplicas" -> {
                        seen = once(seen, 1 << 3);
                        ready = count(parser, item);
                    }
                    case "upToDateReplicas" -> {
                        seen = once(seen, 1 << 4);
                        upToDate = count(parser, item);
                    }
                    default -> parser.skipChildren();
                }
            }
            if (name != null) {
                groups.add(new WorkerNodeGroupStatus(name, specVersion(version), replicas, ready, upToDate));
            }
        }
        return groups;
    }

    private static Versions versions(JsonParser parser) throws IOException, GiveUp {
        String next = null, current = null, last = null;
        Optional<KubernetesVersions> currentKubernetes = Optional.empty();
        int seen = 0;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "next" -> {
                    seen = once(seen, 1);
                    next = text(parser, value);
                }
                case "current" -> {
                    seen = once(seen, 1 << 1);
                    current = text(parser, value);
                }
                case "last" -> {
                    seen = once(seen, 1 << 2);
                    last = text(parser, value);
                }
                case "currentKubernetes" -> {
                    seen = once(seen, 1 << 3);
                    currentKubernetes = object(value) ? currentKubernetes(parser) : Optional.empty();
                }
                default -> parser.skipChildren();
            }
        }
        return new Versions(
                Optional.ofNullable(next),
                Optional.ofNullable(current),
                Optional.ofNullable(last),
                currentKubernetes);
    }

    /** {@code versions.currentKubernetes}: a group without a name makes it unreadable, so not written. */
    private static Optional<KubernetesVersions> currentKubernetes(JsonParser parser) throws IOException, GiveUp {
        String version = null;
        List<KubernetesVersions.Group> groups = new ArrayList<>(4);
        boolean unnamed = false;
        int seen = 0;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "kubernetesVersion" -> {
                    seen = once(seen, 1);
                    version = text(parser, value);
                }
                case "workerNodeGroups" -> {
                    seen = once(seen, 1 << 1);
                    if (array(value)) {
                        while (nextObject(parser)) {
                            String[] group = strings(parser, CURRENT_GROUP_FIELDS);
                            unnamed |= group[0] == null;
                            groups.add(new KubernetesVersions.Group(orEmpty(group[0]), specVersion(group[1])));
                        }
                    }
                }
                default -> parser.skipChildren();
            }
        }
        return unnamed ? Optional.empty() : Optional.of(new KubernetesVersions(specVersion(version), groups));
    }

    private static final String[] CURRENT_GROUP_FIELDS = {"name", "kubernetesVersion"};

    /** A version this aggregator wrote; one that does not parse reads as none, as in the tree. */
    private static Optional<KubernetesVersion> specVersion(String text) {
        return text == null ? Optional.empty() : KubernetesVersion.parseSpec(text);
    }
}
