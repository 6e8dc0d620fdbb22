package io.statusaggregator.operations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.logging.Level;
import io.statusaggregator.pipeline.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The HTTP limits of application.properties, as a client that sends too much, or too little, meets them: a body over
 * 3 MiB gets 413, headers over 16 KiB 431, a request line over 4 KiB 414, and a request left half-sent is closed once
 * the idle timeout has passed (2 s here, 30 s by default). None of these refusals is logged as an error.
 */
@QuarkusTest
@TestProfile(HttpLimitsTest.ShortIdleTimeout.class)
class HttpLimitsTest {
    public static final class ShortIdleTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.idle-timeout", "2s", "quarkus.http.read-timeout", "2s");
        }
    }

    @TestHTTPResource("/")
    URL root;

    @RegisterExtension
    final LogCapture errors = new LogCapture(Level.SEVERE);

    private int status(byte[] request) throws IOException {
        return RawHttp.send(root, request).status();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void tooMuchIsRefusedWithItsOwnCodeAndNoErrorLogged() throws Exception {
        byte[] head = bytes("POST /admission/clusters HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + (4 << 20) + "\r\n\r\n");
        byte[] request = new byte[head.length + (4 << 20)];
        System.arraycopy(head, 0, request, 0, head.length);
        assertEquals(413, status(request), "a body over 3 MiB");
        assertEquals(431, status(bytes("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "x".repeat(20_000) + "\r\nConnection: close\r\n\r\n")),
                "headers over 16 KiB");
        assertEquals(414, status(bytes("GET /" + "a".repeat(5_000) + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")),
                "a request line over 4 KiB");
        assertTrue(errors.lines().isEmpty(), "refusals logged as errors: " + errors.lines());
    }

    @Test
    void aRequestLeftHalfSentIsClosedAfterTheIdleTimeout() throws Exception {
        long start = System.nanoTime();
        try (Socket socket = new Socket(root.getHost(), root.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(bytes("GET / HTTP/1.1\r\nHost: loc"));
            socket.getOutputStream().flush();
            RawHttp.readToEnd(socket.getInputStream()); // returns once the server has closed the connection
        }
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertTrue(seconds < 15, "the half-sent request was held " + seconds + " s; the idle timeout is 2 s");
    }
}
