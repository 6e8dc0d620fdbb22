package io.statusaggregator.model.json;

import static io.statusaggregator.model.json.StrictTokens.array;
import static io.statusaggregator.model.json.StrictTokens.bool;
import static io.statusaggregator.model.json.StrictTokens.count;
import static io.statusaggregator.model.json.StrictTokens.nextObject;
import static io.statusaggregator.model.json.StrictTokens.object;
import static io.statusaggregator.model.json.StrictTokens.text;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.EksaClusterSpec.CniConfig;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.WorkerNodeGroup;
import io.statusaggregator.model.json.StrictTokens.GiveUp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An EKS-A Cluster's spec read from its tokens, as {@code ObjectDecoder.eksaClusterSpec} reads it from the tree: the
 * same answer for a valid spec, and a give-up on anything the tree would refuse (it names the error). Fields may come in
 * any order; one the tree reads that comes twice gives up. Used by {@link EksaClusterReader} with a parser that also
 * writes the spec's canonical text ({@link CanonicalJson}), so the spec is read once, without a tree.
 */
final class ClusterSpecReader {
    private ClusterSpecReader() {
    }

    /** Bits of the fields read, to give up on one that comes twice. */
    private static final class Seen {
        private int bits;

        void once(int bit) throws GiveUp {
            if ((bits & bit) != 0) {
                throw GiveUp.INSTANCE;
            }
            bits |= bit;
        }
    }

    /** The spec whose {@code START_OBJECT} the parser has just read; the parser ends on its {@code END_OBJECT}. */
    static EksaClusterSpec read(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        int controlPlaneCount = -1;
        List<WorkerNodeGroup> groups = List.of();
        Optional<KubernetesVersion> kubernetesVersion = Optional.empty();
        Optional<String> eksaVersion = Optional.empty();
        Optional<String> bundlesRef = Optional.empty();
        boolean externalEtcd = false;
        CniConfig cni = new CniConfig(Cni.CILIUM, false);
        Optional<String> managementCluster = Optional.empty();
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "controlPlaneConfiguration" -> {
                    seen.once(1);
                    if (object(value)) {
                        controlPlaneCount = controlPlaneCount(parser);
                    }
                }
                case "workerNodeGroupConfigurations" -> {
                    seen.once(1 << 1);
                    if (array(value)) {
                        groups = groups(parser);
                    }
                }
                case "kubernetesVersion" -> {
                    seen.once(1 << 2);
                    kubernetesVersion = version(text(parser, value));
                }
                case "eksaVersion" -> {
                    seen.once(1 << 3);
                    eksaVersion = Optional.ofNullable(text(parser, value));
                }
                case "bundlesRef" -> {
                    seen.once(1 << 4);
                    bundlesRef = object(value) ? name(parser) : Optional.empty();
                }
                case "externalEtcdConfiguration" -> {
                    seen.once(1 << 5);
                    externalEtcd = object(value);
                    if (externalEtcd) {
                        externalEtcdCount(parser);
                    }
                }
                case "clusterNetwork" -> {
                    seen.once(1 << 6);
                    if (object(value)) {
                        cni = cni(parser);
                    }
                }
                case "managementCluster" -> {
                    seen.once(1 << 7);
                    managementCluster = (object(value) ? name(parser) : Optional.<String>empty()).filter(name -> !name.isEmpty());
                }
                default -> parser.skipChildren();
            }
        }
        if (controlPlaneCount < 0) {
            throw GiveUp.INSTANCE; // required
        }
        return new EksaClusterSpec(controlPlaneCount, groups, kubernetesVersion, eksaVersion, bundlesRef, externalEtcd, cni,
                managementCluster);
    }

    /** A count that may be absent or null (-1), else a whole number, not negative. */
    private static int optionalCount(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        return value == JsonToken.VALUE_NULL ? -1 : count(parser, value);
    }

    private static int controlPlaneCount(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        int count = -1;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            if (field.equals("count")) {
                seen.once(1);
                count = optionalCount(parser, value);
            } else {
                parser.skipChildren();
            }
        }
        return count;
    }

    private static void externalEtcdCount(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            if (field.equals("count")) {
                seen.once(1);
                optionalCount(parser, value); // checked, not kept
            } else {
                parser.skipChildren();
            }
        }
    }

    private static List<WorkerNodeGroup> groups(JsonParser parser) throws IOException, GiveUp {
        List<WorkerNodeGroup> groups = new ArrayList<>(2);
        while (nextObject(parser)) {
            groups.add(group(parser));
        }
        return groups;
    }

    private static WorkerNodeGroup group(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        String name = null;
        int count = -1;
        Optional<WorkerNodeGroup.Autoscaling> autoscaling = Optional.empty();
        Optional<KubernetesVersion> version = Optional.empty();
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "name" -> {
                    seen.once(1);
                    name = text(parser, value);
                }
                case "count" -> {
                    seen.once(1 << 1);
                    count = optionalCount(parser, value);
                }
                case "autoscalingConfiguration" -> {
                    seen.once(1 << 2);
                    autoscaling = object(value) ? Optional.of(autoscaling(parser)) : Optional.empty();
                }
                case "kubernetesVersion" -> {
                    seen.once(1 << 3);
                    version = version(text(parser, value));
                }
                default -> parser.skipChildren();
            }
        }
        if (name == null || name.isEmpty()) {
            throw GiveUp.INSTANCE; // required
        }
        // EKS-A defaults a group without a count to one node.
        return new WorkerNodeGroup(name, count < 0 ? 1 : count, autoscaling, version);
    }

    private static WorkerNodeGroup.Autoscaling autoscaling(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        int min = 0;
        int max = -1;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "minCount" -> {
                    seen.once(1);
                    min = count(parser, value);
                }
                case "maxCount" -> {
                    seen.once(1 << 1);
                    max = optionalCount(parser, value);
                }
                default -> parser.skipChildren();
            }
        }
        if (max < 0 || min > max) {
            throw GiveUp.INSTANCE; // maxCount is required, and bounds minCount
        }
        return new WorkerNodeGroup.Autoscaling(min, max);
    }

    private static Optional<KubernetesVersion> version(String text) throws GiveUp {
        if (text == null) {
            return Optional.empty();
        }
        Optional<KubernetesVersion> version = KubernetesVersion.parseSpec(text);
        if (version.isEmpty()) {
            throw GiveUp.INSTANCE;
        }
        return version;
    }

    /** An object's {@code name}, if it is there. */
    private static Optional<String> name(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        String name = null;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            if (field.equals("name")) {
                seen.once(1);
                name = text(parser, value);
            } else {
                parser.skipChildren();
            }
        }
        return Optional.ofNullable(name);
    }

    /**
     * {@code clusterNetwork}: {@code cniConfig} names one CNI; else the older {@code cni} string, judged only then (as
     * the tree judges it); else Cilium.
     */
    private static CniConfig cni(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        CniConfig configured = null;
        String legacy = null;
        boolean legacyNotText = false;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "cniConfig" -> {
                    seen.once(1);
                    configured = object(value) ? cniConfig(parser) : null;
                }
                case "cni" -> {
                    seen.once(1 << 1);
                    if (value == JsonToken.VALUE_STRING) {
                        legacy = parser.getText();
                    } else if (value != JsonToken.VALUE_NULL) {
                        legacyNotText = true;
                        parser.skipChildren();
                    }
                }
                default -> parser.skipChildren();
            }
        }
        if (configured != null) {
            return configured;
        }
        if (legacyNotText) {
            throw GiveUp.INSTANCE;
        }
        if (legacy != null) {
            if (legacy.startsWith("cilium")) {
                return new CniConfig(Cni.CILIUM, false);
            }
            return new CniConfig(Cni.of(legacy).orElseThrow(() -> GiveUp.INSTANCE), false);
        }
        return new CniConfig(Cni.CILIUM, false);
    }

    /** {@code cniConfig}: Cilium (with whether its upgrades are skipped) or kindnetd, not both; null when neither. */
    private static CniConfig cniConfig(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        CniConfig cilium = null;
        boolean kindnetd = false;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "cilium" -> {
                    seen.once(1);
                    if (object(value)) {
                        cilium = new CniConfig(Cni.CILIUM, skipUpgrade(parser));
                    }
                }
                case "kindnetd" -> {
                    seen.once(1 << 1);
                    kindnetd = value != JsonToken.VALUE_NULL; // its content is not read
                    parser.skipChildren();
                }
                default -> parser.skipChildren();
            }
        }
        if (cilium != null && kindnetd) {
            throw GiveUp.INSTANCE; // a cluster has one CNI
        }
        return kindnetd ? new CniConfig(Cni.KINDNETD, false) : cilium;
    }

    private static boolean skipUpgrade(JsonParser parser) throws IOException, GiveUp {
        Seen seen = new Seen();
        boolean skip = false;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            if (field.equals("skipUpgrade")) {
                seen.once(1);
                skip = bool(value);
            } else {
                parser.skipChildren();
            }
        }
        return skip;
    }
}
