package io.statusaggregator.versions;

import io.statusaggregator.model.EksaVersion;
import io.statusaggregator.model.EksaReleaseName;
import io.statusaggregator.model.json.SpecHash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The EKS-A version rules and the version history of versions.md, table-driven. */
class VersionRulesTest {
    private static EksaCluster cluster(String eksaVersion, String current, String annotations) throws Exception {
        String yaml = """
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: c1, generation: 2, annotations: {%s}}
                spec:
                  kubernetesVersion: "1.28"
                  %s
                  controlPlaneConfiguration: {count: 1}
                status:
                  versions: {%s}
                """.formatted(annotations, eksaVersion.isEmpty() ? "" : "eksaVersion: " + eksaVersion,
                current.isEmpty() ? "" : "current: \"" + current + "\"");
        return (EksaCluster) ObjectDecoder.decode(new YAMLMapper().readTree(yaml)).orElseThrow();
    }

    @ParameterizedTest(name = "{0} from {1}")
    @CsvSource(delimiter = '|', value = {
            "v0.19.0 | v0.18.3#h | ''",
            "v0.18.5 | v0.18.3#h | ''",
            "v0.18.1 | v0.18.3#h | ''",
            "v0.20.0 | v0.18.3#h | cannot upgrade to v0.20.0 from v0.18.3: EksaVersion upgrades must have a skew of 1 minor version",
            "v1.0.0  | v0.18.3#h | cannot upgrade to v1.0.0 from v0.18.3: EksaVersion upgrades must have a skew of 1 minor version",
            "v0.17.9 | v0.18.3#h | cannot downgrade from v0.18.3 to v0.17.9: EksaVersion upgrades must be incremental",
            "v0.20.0 | ''        | ''",
            "v0.20.0 | eksa-bundles-12#h | ''",
            "v0.20.0 | v0.18.3#a#b | ''"})
    void eksaVersionUpgradesGoOneMinorAtATime(String requested, String current, String message) throws Exception {
        Optional<Failure> expected = message.isEmpty() ? Optional.empty() : Optional.of(new Failure("EksaVersionInvalid", message));
        assertEquals(expected, EksaVersionSkew.check(cluster(requested, current, ""), ManagementCluster.UNKNOWN));
    }

    @Test
    void theAnnotationBypassesTheSkewCheck() throws Exception {
        assertEquals(Optional.empty(), EksaVersionSkew.check(cluster("v0.21.0", "v0.18.3#h",
                "anywhere.eks.amazonaws.com/skip-eksa-version-skew-check: \"true\""), ManagementCluster.UNKNOWN));
        assertEquals("EksaVersionInvalid", EksaVersionSkew.check(cluster("v0.21.0", "v0.18.3#h",
                "anywhere.eks.amazonaws.com/skip-eksa-version-skew-check: \"false\""), ManagementCluster.UNKNOWN).orElseThrow().reason());
    }

    @Test
    void eksaVersionAndBundlesRefTogetherAreInvalid() throws Exception {
        EksaCluster both = (EksaCluster) ObjectDecoder.decode(new YAMLMapper().readTree("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: c1}
                spec: {kubernetesVersion: "1.28", eksaVersion: v0.18.0, bundlesRef: {name: bundles-1, namespace: eksa-system},
                  controlPlaneConfiguration: {count: 1}}
                """)).orElseThrow();
        assertEquals("EksaVersionInvalid", EksaVersionSkew.check(both, ManagementCluster.UNKNOWN).orElseThrow().reason());
    }

    @Test
    void theSpecHashIsTheSha1OfTheCanonicalJson() throws Exception {
        var spec = new YAMLMapper().readTree("{b: 1, a: {z: \"é\", y: [2, 1]}, kubernetesVersion: \"1.27\"}");
        assertEquals("{\"a\":{\"y\":[2,1],\"z\":\"é\"},\"b\":1,\"kubernetesVersion\":\"1.27\"}", SpecHash.canonical(spec));
        // Computed independently: base64url(sha1(canonical)) with Python's hashlib.
        assertEquals("OVPSfGiB2Qu3TcAh5X3tqc61YJQ", SpecHash.of(spec));
    }

    @Test
    void aNewSpecIsNextUntilTheClusterIsReadyThenCurrentAndTheOldOneLast() throws Exception {
        EksaCluster first = cluster("v0.18.3", "", "");
        String v1 = VersionHistory.specVersion(first);
        assertEquals("v0.18.3#" + first.specHash(), v1);
        Optional<KubernetesVersions> at128 = Optional.of(KubernetesVersions.of(first.spec()));
        assertEquals(new Versions(Optional.of(v1), Optional.empty(), Optional.empty(), Optional.empty()), VersionHistory.advance(first, false));
        assertEquals(new Versions(Optional.empty(), Optional.of(v1), Optional.empty(), at128), VersionHistory.advance(first, true),
                "reaching a spec records its Kubernetes versions with it");

        EksaCluster upgraded = cluster("v0.19.0", v1, "");
        String v2 = VersionHistory.specVersion(upgraded);
        assertEquals(new Versions(Optional.of(v2), Optional.of(v1), Optional.empty(), Optional.empty()), VersionHistory.advance(upgraded, false),
                "an older status without currentKubernetes: nothing is made up for a spec that is not current's");
        assertEquals(new Versions(Optional.empty(), Optional.of(v2), Optional.of(v1), at128), VersionHistory.advance(upgraded, true));

        EksaCluster steady = cluster("v0.18.3", v1, "");
        assertEquals(new Versions(Optional.empty(), Optional.of(v1), Optional.empty(), at128), VersionHistory.advance(steady, false),
                "a spec that is the current one is no update");
    }

    @ParameterizedTest
    @CsvSource({"v0.15.3, eksa-v0-15-3", "v0.19.0-rc.1, eksa-v0-19-0-rc-1", "v0.18.0+build.5, eksa-v0-18-0-plus-build-5"})
    void aReleaseObjectIsNamedAfterItsVersion(String version, String name) {
        assertEquals(name, EksaReleaseName.of(version));
    }

    @Test
    void aReleaseMissingFromTheManagementClusterIsInvalidOnceReleasesAreKnown() throws Exception {
        EksaCluster cluster = cluster("v0.18.3", "", "");
        assertEquals(Optional.of(new Failure("EksaVersionInvalid", "eksarelease eksa-v0-18-3 could not be found on the management cluster")),
                EksaVersionSkew.check(cluster, releases("eksa-v0-18-2")));
        assertEquals(Optional.empty(), EksaVersionSkew.check(cluster, releases("eksa-v0-18-3")));
        assertEquals(Optional.empty(), EksaVersionSkew.check(cluster, ManagementCluster.UNKNOWN), "releases not known yet: nothing is missing");
    }

    private static ManagementCluster releases(String... names) {
        return new ManagementCluster(Optional.of(java.util.Arrays.stream(names)
                .map(n -> new EksaRelease(n, Optional.empty(), Optional.empty())).toList()), java.util.Map.of());
    }
}
