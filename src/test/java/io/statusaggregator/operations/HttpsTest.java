package io.statusaggregator.operations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.certs.CertificateGenerator;
import io.smallrye.certs.CertificateRequest;
import io.smallrye.certs.Format;
import io.smallrye.certs.PemCertificateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/**
 * The user-facing port with a serving certificate in PEM through Quarkus' TLS registry, as the Deployment configures
 * it from cert-manager's Secret: the endpoints answer HTTPS to a client that trusts the certificate, and plain HTTP
 * is refused on every port; health and metrics stay on the management interface, over HTTPS too.
 */
@QuarkusTest
@TestProfile(HttpsTest.ServingCertificate.class)
class HttpsTest {
    static final Path CERTIFICATES = Path.of("target", "https-test-certificates");

    /** The Deployment's settings (deploy/kubernetes/deployment.yaml), with files made here and free ports. */
    public static final class ServingCertificate implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            try {
                Files.createDirectories(CERTIFICATES);
                PemCertificateFiles files = (PemCertificateFiles) new CertificateGenerator(CERTIFICATES, true).generate(new CertificateRequest()
                        .withName("preflight").withFormat(Format.PEM).withCN("localhost").withDuration(Duration.ofDays(2))).get(0);
                // Both ports held open while the second is chosen: a port just closed may be handed out again.
                try (ServerSocket http = new ServerSocket(0); ServerSocket https = new ServerSocket(0)) {
                    return Map.of(
                            "quarkus.tls.key-store.pem.0.cert", files.certFile().toString(),
                            "quarkus.tls.key-store.pem.0.key", files.keyFile().toString(),
                            "quarkus.http.insecure-requests", "disabled",
                            "quarkus.http.test-port", Integer.toString(http.getLocalPort()),
                            "quarkus.http.test-ssl-port", Integer.toString(https.getLocalPort()));
                }
            } catch (Exception e) {
                throw new IllegalStateException("cannot make the test's certificate", e);
            }
        }
    }

    @TestHTTPResource(value = "/", tls = true)
    URL https;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    private static HttpClient trusting(Path certificate) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(certificate)) {
            trusted.setCertificateEntry("preflight", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build();
    }

    private static HttpResponse<String> get(HttpClient client, URI uri) throws Exception {
        return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesHttpsWithTheConfiguredCertificateAndRefusesPlainHttp() throws Exception {
        assertEquals("https", https.getProtocol());
        HttpClient client = trusting(CERTIFICATES.resolve("preflight.crt"));
        HttpResponse<String> page = get(client, https.toURI().resolve("/"));
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("/fleet/fleet.js"), "the fleet page: " + page.body());
        // The preflight endpoints answer too, over HTTPS (503 until a pipeline runs, as in a starting replica).
        HttpResponse<String> check = get(client, https.toURI().resolve("/upgrade-check/default/alpha"));
        assertEquals(503, check.statusCode(), check.body());

        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        URI httpsPortInPlain = URI.create("http://localhost:" + https.getPort() + "/");
        assertThrows(IOException.class, () -> get(plain, httpsPortInPlain), "plain HTTP on the HTTPS port");
        int httpPort = org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        assertThrows(IOException.class, () -> get(plain, URI.create("http://localhost:" + httpPort + "/")), "no plain HTTP port");
        // A client that does not trust the certificate is refused.
        assertThrows(IOException.class, () -> get(HttpClient.newHttpClient(), https.toURI().resolve("/")));

        // The management interface takes the default TLS configuration too: the probes and Prometheus use HTTPS.
        URI managementHttps = URI.create("https://localhost:" + management.getPort() + "/q/health/live");
        HttpResponse<String> live = get(client, managementHttps);
        assertEquals(200, live.statusCode(), live.body());
        assertThrows(IOException.class, () -> get(plain, URI.create("http://localhost:" + management.getPort() + "/q/health/live")),
                "plain HTTP on the management port");
    }
}
