package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which workload kubeconfigs the CNI observer uses: credentials written in, never a command or a file of its pod. */
class WorkloadKubeconfigTest {
    private static String kubeconfig(String cluster, String user) {
        return """
                apiVersion: v1
                kind: Config
                clusters: [{name: w, cluster: {server: "https://10.0.0.1:6443", %s}}]
                users: [{name: w, user: {%s}}]
                contexts: [{name: w, context: {cluster: w, user: w}}]
                current-context: w
                """.formatted(cluster, user);
    }

    @ParameterizedTest(name = "{0} / {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            // What Cluster API writes: a client certificate and key, and the CA, all inline.
            "certificate-authority-data: Q0E= | client-certificate-data: Q0VSVA==, client-key-data: S0VZ | ",
            "certificate-authority-data: Q0E= | token: abc | ",
            "certificate-authority-data: Q0E= | exec: {command: aws, args: [eks, get-token]} | its user has exec, and only credentials written into the kubeconfig are used",
            "certificate-authority-data: Q0E= | auth-provider: {name: oidc} | its user has auth-provider, and only credentials written into the kubeconfig are used",
            "certificate-authority-data: Q0E= | tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token | its user has tokenFile, and only credentials written into the kubeconfig are used",
            "certificate-authority-data: Q0E= | client-certificate: /etc/x.crt, client-key: /etc/x.key | its user has client-certificate, and only credentials written into the kubeconfig are used",
            "certificate-authority: /etc/ca.crt | token: abc | its cluster has certificate-authority, and only a CA written into the kubeconfig is used",
    })
    void onlyCredentialsWrittenInAreUsed(String cluster, String user, String refusal) {
        assertEquals(Optional.ofNullable(refusal), WorkloadKubeconfig.refusal(kubeconfig(cluster, user)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"this is: [not a kubeconfig", "just text", "[1, 2]"})
    void whatIsNoKubeconfigIsLeftToTheKubeconfigReader(String text) {
        assertEquals(Optional.empty(), WorkloadKubeconfig.refusal(text));
    }
}
