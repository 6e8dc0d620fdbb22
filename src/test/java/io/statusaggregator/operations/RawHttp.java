package io.statusaggregator.operations;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 requests written as bytes on a socket, so that what no client library sends (raw control bytes, bad
 * escapes, half a request, more than the limits) can be sent, and the answer read as it comes.
 */
public final class RawHttp {
    private RawHttp() {
    }

    /** An answer: its status code (-1 when the server closed without one) and its whole text. */
    public record Answer(int status, String text) {
    }

    /** Sends {@code request} to the server at {@code base} and reads until it closes (or 20 s pass). */
    public static Answer send(URL base, byte[] request) throws IOException {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request);
                out.flush();
            } catch (IOException e) {
                // The server answered and closed before the whole request was written (over a limit).
            }
            String text = readToEnd(socket.getInputStream());
            // Vert.x answers a request it cannot parse (414, 400) in HTTP/1.0.
            return new Answer(text.startsWith("HTTP/1.") && text.length() >= 12 ? Integer.parseInt(text.substring(9, 12)) : -1, text);
        }
    }

    /** What arrives until the server closes the connection, or resets it, or 20 s pass without a byte. */
    public static String readToEnd(InputStream in) {
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int read;
        try {
            while ((read = in.read(buffer)) >= 0 && answer.size() < 1 << 20) {
                answer.write(buffer, 0, read);
            }
        } catch (IOException e) {
            // A timeout, or a reset after the answer: what arrived is the answer.
        }
        return answer.toString(StandardCharsets.ISO_8859_1);
    }

    public static byte[] get(String target) {
        return ("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] post(String target, byte[] body) {
        byte[] head = ("POST " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] request = new byte[head.length + body.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        return request;
    }
}
