package io.statusaggregator.model.json;

import static io.statusaggregator.model.json.StrictTokens.array;
import static io.statusaggregator.model.json.StrictTokens.bool;
import static io.statusaggregator.model.json.StrictTokens.count;
import static io.statusaggregator.model.json.StrictTokens.objectItem;
import static io.statusaggregator.model.json.StrictTokens.object;
import static io.statusaggregator.model.json.StrictTokens.text;

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
 * same answer for a valid spec, and a give-up on anything the tree would refuse (it names the error). Fields may come
 * in any order; one the tree reads that comes twice gives up. It moves its parser on only through
 * {@link CanonicalJson}'s tokens, which write the spec's canonical text as they come, so the spec is read once, without
 * a tree.
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

    /** The spec whose {@code START_OBJECT} was read last; reading ends on its {@code END_OBJECT}. */
    static EksaClusterSpec read(CanonicalJson.Tokens in) throws IOException, GiveUp {
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
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            switch (field) {
                case "controlPlaneConfiguration" -> {
                    seen.once(1);
                    if (object(value)) {
                        controlPlaneCount = countOf(in);
                    }
                }
                case "workerNodeGroupConfigurations" -> {
                    seen.once(1 << 1);
                    if (array(value)) {
                        groups = groups(in);
                    }
                }
                case "kubernetesVersion" -> {
                    seen.once(1 << 2);
                    kubernetesVersion = version(text(in.parser, value));
                }
                case "eksaVersion" -> {
                    seen.once(1 << 3);
                    eksaVersion = Optional.ofNullable(text(in.parser, value));
                }
                case "bundlesRef" -> {
                    seen.once(1 << 4);
                    bundlesRef = object(value) ? name(in) : Optional.empty();
                }
                case "externalEtcdConfiguration" -> {
                    seen.once(1 << 5);
                    externalEtcd = object(value);
                    if (externalEtcd) {
                        countOf(in); // checked, not kept
                    }
                }
                case "clusterNetwork" -> {
                    seen.once(1 << 6);
                    if (object(value)) {
                        cni = cni(in);
                    }
                }
                case "managementCluster" -> {
                    seen.once(1 << 7);
                    managementCluster =
                            (object(value) ? name(in) : Optional.<String>empty()).filter(name -> !name.isEmpty());
                }
                default -> in.skipChildren();
            }
        }
        if (controlPlaneCount < 0 || kubernetesVersion.isEmpty()) {
            throw GiveUp.INSTANCE; // required: ObjectDecoder names what is missing
        }
        return new EksaClusterSpec(
                controlPlaneCount,
                groups,
                kubernetesVersion,
                eksaVersion,
                bundlesRef,
                externalEtcd,
                cni,
                managementCluster);
    }

    /** A count that may be absent or null (-1), else a whole number, not negative. */
    private static int optionalCount(CanonicalJson.Tokens in, JsonToken value) throws IOException, GiveUp {
        return value == JsonToken.VALUE_NULL ? -1 : count(in.parser, value);
    }

    /** An object's {@code count}: -1 when absent or null. */
    private static int countOf(CanonicalJson.Tokens in) throws IOException, GiveUp {
        Seen seen = new Seen();
        int count = -1;
        String field;
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            if (field.equals("count")) {
                seen.once(1);
                count = optionalCount(in, value);
            } else {
                in.skipChildren();
            }
        }
        return count;
    }

    private static List<WorkerNodeGroup> groups(CanonicalJson.Tokens in) throws IOException, GiveUp {
        List<WorkerNodeGroup> groups = new ArrayList<>(2);
        while (objectItem(in.nextToken())) {
            groups.add(group(in));
        }
        return groups;
    }

    private static WorkerNodeGroup group(CanonicalJson.Tokens in) throws IOException, GiveUp {
        Seen seen = new Seen();
        String name = null;
        int count = -1;
        Optional<WorkerNodeGroup.Autoscaling> autoscaling = Optional.empty();
        Optional<KubernetesVersion> version = Optional.empty();
        String field;
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            switch (field) {
                case "name" -> {
                    seen.once(1);
                    name = text(in.parser, value);
                }
                case "count" -> {
                    seen.once(1 << 1);
                    count = optionalCount(in, value);
                }
                case "autoscalingConfiguration" -> {
                    seen.once(1 << 2);
                    autoscaling = object(value) ? Optional.of(autoscaling(in)) : Optional.empty();
                }
                case "kubernetesVersion" -> {
                    seen.once(1 << 3);
                    version = version(text(in.parser, value));
                }
                default -> in.skipChildren();
            }
        }
        if (name == null || name.isEmpty()) {
            throw GiveUp.INSTANCE; // required
        }
        // EKS-A defaults a group without a count to one node.
        return new WorkerNodeGroup(name, count < 0 ? 1 : count, autoscaling, version);
    }

    private static WorkerNodeGroup.Autoscaling autoscaling(CanonicalJson.Tokens in) throws IOException, GiveUp {
        Seen seen = new Seen();
        int min = 0;
        int max = -1;
        String field;
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            switch (field) {
                case "minCount" -> {
                    seen.once(1);
                    min = count(in.parser, value);
                }
                case "maxCount" -> {
                    seen.once(1 << 1);
                    max = optionalCount(in, value);
                }
                default -> in.skipChildren();
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
    private static Optional<String> name(CanonicalJson.Tokens in) throws IOException, GiveUp {
        Seen seen = new Seen();
        String name = null;
        String field;
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            if (field.equals("name")) {
                seen.once(1);
                name = text(in.parser, value);
            } else {
                in.skipChildren();
            }
        }
        return Optional.ofNullable(name);
    }

    /**
     * {@code clusterNetwork}: {@code cniConfig} names one CNI; else the older {@code cni} string, judged only then (as
     * the tree judges it); else Cilium.
     */
    private static CniConfig cni(CanonicalJson.Tokens in) throws IOException, GiveUp {
        Seen seen = new Seen();
        CniConfig configured = null;
        String legacy = null;
        boolean legacyNotText = false;
        String field;
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            switch (field) {
                case "cniConfig" -> {
                    seen.once(1);
                    configured = object(value) ? cniConfig(in) : null;
                }
                case "cni" -> {
                    seen.once(1 << 1);
                    if (value == JsonToken.VALUE_STRING) {
                        legacy = in.parser.getText();
                    } else if (value != JsonToken.VALUE_NULL) {
                        legacyNotText = true;
                        in.skipChildren();
                    }
                }
                default -> in.skipChildren();
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
    private static CniConfig cniConfig(CanonicalJson.Tokens in) throws IOException, GiveUp {
        Seen seen = new Seen();
        CniConfig cilium = null;
        boolean kindnetd = false;
        String field;
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            switch (field) {
                case "cilium" -> {
                    seen.once(1);
                    if (object(value)) {
                        cilium = new CniConfig(Cni.CILIUM, skipUpgrade(in));
                    }
                }
                case "kindnetd" -> {
                    seen.once(1 << 1);
                    kindnetd = value != JsonToken.VALUE_NULL; // its content is not read
                    in.skipChildren();
                }
                default -> in.skipChildren();
            }
        }
        if (cilium != null && kindnetd) {
            throw GiveUp.INSTANCE; // a cluster has one CNI
        }
        return kindnetd ? new CniConfig(Cni.KINDNETD, false) : cilium;
    }

    private static boolean skipUpgrade(CanonicalJson.Tokens in) throws IOException, GiveUp {
        Seen seen = new Seen();
        boolean skip = false;
        String field;
        while ((field = in.nextFieldName()) != null) {
            JsonToken value = in.nextToken();
            if (field.equals("skipUpgrade")) {
                seen.once(1);
                skip = bool(value);
            } else {
                in.skipChildren();
            }
        }
        return skip;
    }
}
