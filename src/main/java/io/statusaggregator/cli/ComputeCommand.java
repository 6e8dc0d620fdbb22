package io.statusaggregator.cli;

import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.quarkus.arc.Unremovable;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.model.ClusterMember;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.NameConflict;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.StatusDocument;
import io.statusaggregator.rules.DefaultCniConfigured;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.json.CompatibilityReader;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

@Dependent
@Unremovable
@Command(name = "compute",
        mixinStandardHelpOptions = true,
        header = "Compute statuses from a file of objects, offline.",
        description = {
                "Computes the status of every EKS Anywhere Cluster in FILE from the Cluster API objects beside it, "
                        + "and prints one YAML document per Cluster, in input order: apiVersion, kind, metadata "
                        + "(namespace, name, generation) and the computed status.",
                "",
                "FILE holds Kubernetes objects as multi-document YAML (or kind: List, as kubectl get -o yaml "
                        + "prints): EKS-A Clusters (a previous status on a Cluster is an input: it keeps transition "
                        + "times and foreign failure reasons), and KubeadmControlPlanes, MachineDeployments, Machines, "
                        + "CAPI Clusters, EtcdadmClusters and CNIObservations in the CAPI namespace, and EKSARelease "
                        + "objects (with any, an eksaVersion whose release is not among them is invalid). Objects of "
                        + "other kinds are skipped with a warning; so is an object whose cluster is not in FILE.",
                "",
                "Exit status: 0 when every Cluster was computed; 2 on bad input (not YAML, or an object with a "
                        + "field of the wrong type, a negative count, a bad version), with each problem on standard "
                        + "error naming the document and the field, and nothing on standard output."})
public class ComputeCommand implements Callable<Integer> {
    static final int BAD_INPUT = 2;

    @Parameters(index = "0", paramLabel = "FILE", description = "The objects, as YAML; - reads standard input.")
    String file;

    @Option(names = "--capi-namespace", paramLabel = "NAMESPACE",
            description = "Namespace of the Cluster API objects (default: aggregator.capi-namespace, eksa-system).")
    String capiNamespace;

    @Option(names = "--now", paramLabel = "TIME", converter = Rfc3339.class,
            description = "Time stamped on conditions that change, RFC 3339 (default: the current time).")
    Instant now;

    /** A time as the conditions carry it; what picocli would say of a bad one names Java's classes. */
    static final class Rfc3339 implements CommandLine.ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return OffsetDateTime.parse(value.strip()).toInstant();
            } catch (DateTimeParseException e) {
                throw new CommandLine.TypeConversionException(
                        "takes an RFC 3339 time like 2026-11-22T10:00:00Z, got '" + value + "'");
            }
        }
    }

    @Inject
    CommandSettings settings;

    @Override
    public Integer call() throws IOException {
        if (capiNamespace == null) {
            capiNamespace = settings.capiNamespace();
        }
        Optional<String> badNamespace = KubernetesNames.namespaceProblem(capiNamespace);
        if (badNamespace.isPresent()) {
            System.err.println("error: --capi-namespace: " + badNamespace.get());
            return BAD_INPUT;
        }
        if ("-".equals(file)) {
            return compute(System.in, System.out, System.err);
        }
        try (InputStream in = new FileInputStream(file)) {
            return compute(in, System.out, System.err);
        } catch (FileNotFoundException e) {
            System.err.println("error: cannot read " + file + ": " + e.getMessage());
            return BAD_INPUT;
        }
    }

    int compute(InputStream in, PrintStream out, PrintStream err) throws IOException {
        List<YamlDocuments.Document> documents;
        try {
            documents = YamlDocuments.read(in);
        } catch (YamlDocuments.NotYaml e) {
            err.println("error: " + e.getMessage());
            return BAD_INPUT;
        }

        List<String> errors = new ArrayList<>();
        List<KubernetesObject> objects = new ArrayList<>();
        // EKSARelease objects in the input are the management cluster's releases; without any, releases are unknown.
        List<EksaRelease> releases = new ArrayList<>();
        Map<String, Integer> skippedKinds = new TreeMap<>();
        for (YamlDocuments.Document document : documents) {
            try {
                if (ObjectDecoder.isEksaRelease(document.node())) {
                    releases.add(ObjectDecoder.eksaRelease(document.node()));
                    continue;
                }
                var decoded = ObjectDecoder.decode(document.node());
                if (decoded.isPresent()) {
                    objects.add(decoded.get());
                } else {
                    skippedKinds.merge(document.node().path("kind").asText(), 1, Integer::sum);
                }
            } catch (MalformedObjectException e) {
                errors.add("error: " + document.label() + describe(document) + ": " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            errors.forEach(err::println);
            return BAD_INPUT;
        }
        skippedKinds.forEach((kind, count) -> err.println(
                "warning: skipped " + count + " object(s) of kind " + kind + ", which the status rules do not read"));

        Map<String, ClusterState> clusters = clustersByName(objects, err);
        for (KubernetesObject object : objects) {
            if (object instanceof ClusterMember member) {
                ClusterState state = clusters.get(member.clusterName());
                if (!member.key().namespace().equals(capiNamespace)) {
                    err.println("warning: skipped " + member.kind().kind() + " " + member.key()
                            + ": not in the CAPI namespace " + capiNamespace);
                } else if (state == null) {
                    err.println("warning: skipped " + member.kind().kind() + " " + member.key() + ": its cluster "
                            + member.clusterName() + " is not in the input");
                } else {
                    state.put(member);
                }
            }
        }

        ManagementCluster management = new ManagementCluster(
                releases.isEmpty() ? Optional.empty() : Optional.of(releases),
                clusters.values().stream()
                        .flatMap(c -> c.cluster().stream())
                        .filter(c -> c.isManagement() && c.spec().eksaVersion().isPresent())
                        .collect(Collectors.toMap(
                                c -> c.key().name(), c -> c.spec().eksaVersion().get(), (a, b) -> a)));
        Compatibility compatibility = CompatibilityReader.builtIn();
        Instant at = now != null ? now : Clock.systemUTC().instant();
        // Strings quoted, as kubectl and the proposal's examples write them (a bare time is a YAML 1.1 timestamp).
        YAMLMapper yaml = YAMLMapper.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .build();
        StringBuilder printed = new StringBuilder();
        List<String> unobserved = new ArrayList<>();
        for (ClusterState state : clusters.values()) {
            ClusterSnapshot snapshot = state.snapshot(compatibility, management).orElseThrow();
            ClusterStatus status = StatusRules.compute(snapshot, at);
            printed.append("---\n").append(yaml.writeValueAsString(StatusDocument.of(snapshot.cluster(), status)));
            if (DefaultCniConfigured.lacksObservation(snapshot) && snapshot.nameConflict().isEmpty()) {
                unobserved.add(snapshot.cluster().key().toString());
            }
        }
        if (!unobserved.isEmpty()) {
            err.println(cniNote(unobserved));
        }
        out.print(printed);
        out.flush();
        return 0;
    }

    /**
     * Each EKS-A Cluster's state, by name. Of Clusters that share a name in several namespaces, the one created first
     * holds the name and its CAPI objects; each other is computed alone, by {@code namespace/name}, and shows
     * ClusterNameConflict (status-rules.md, "Two EKS-A Clusters with one name").
     */
    private Map<String, ClusterState> clustersByName(List<KubernetesObject> objects, PrintStream err) {
        Map<String, List<EksaCluster>> byName = new LinkedHashMap<>();
        for (KubernetesObject object : objects) {
            if (object instanceof EksaCluster cluster) {
                byName.computeIfAbsent(cluster.key().name(), n -> new ArrayList<>()).add(cluster);
            }
        }
        Map<String, ClusterState> clusters = new LinkedHashMap<>();
        byName.forEach((name, sharing) -> {
            sharing.sort(EksaCluster.HOLDS_NAME_FIRST);
            EksaCluster holder = sharing.get(0);
            ClusterState holding = new ClusterState(name);
            holding.put(holder);
            clusters.put(name, holding);
            for (EksaCluster other : sharing.subList(1, sharing.size())) {
                err.println("warning: EKS-A Clusters " + holder.key() + " and " + other.key() + " share a name: "
                        + holder.key() + ", created first, has its CAPI objects; " + other.key()
                        + " shows ClusterNameConflict");
                ClusterState alone = new ClusterState(other.key().toString());
                alone.put(other);
                alone.nameHeldBy(Optional.of(new NameConflict(holder.key(), capiNamespace)));
                clusters.put(other.key().toString(), alone);
            }
        });
        return clusters;
    }

    /** The clusters a note names before it only counts the rest. */
    private static final int NAMED = 3;

    /**
     * Why DefaultCNIConfigured is False for these clusters, in one line. The usual input,
     * {@code kubectl get ... -o yaml}, never holds a CNIObservation: the aggregator makes it by watching each workload
     * cluster's CNI, and keeps it on its topic, not in the API. Without the note, a cluster the aggregator shows Ready
     * is not Ready here, unexplained.
     */
    static String cniNote(List<String> clusters) {
        String named = String.join(", ", clusters.subList(0, Math.min(NAMED, clusters.size())))
                + (clusters.size() > NAMED ? " and " + (clusters.size() - NAMED) + " more" : "");
        return "note: no CNIObservation in the input for " + named + ": DefaultCNIConfigured is False "
                + "(WaitingForDefaultCNIConfigured) and so is Ready, whatever runs in the workload cluster; only the "
                + "aggregator observes the CNI, so kubectl's output never holds one";
    }

    /** " (KubeadmControlPlane eksa-system/c1)" where the document says what it is. */
    private static String describe(YamlDocuments.Document document) {
        var node = document.node();
        String kind = node.path("kind").asText("");
        String name = node.path("metadata").path("name").asText("");
        if (kind.isEmpty() || name.isEmpty()) {
            return "";
        }
        String namespace = node.path("metadata").path("namespace").asText(ObjectDecoder.DEFAULT_NAMESPACE);
        return " (" + kind + " " + namespace + "/" + name + ")";
    }
}
