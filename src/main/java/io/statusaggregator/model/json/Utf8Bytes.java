package io.statusaggregator.model.json;

import java.io.Writer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * A {@link Writer} that encodes what is written to UTF-8 exactly as {@code String.getBytes(UTF_8)} does (an unpaired
 * surrogate becomes {@code ?}), into a SHA-1 digest or into a byte array, without a {@code String} in between: what a
 * JSON generator writes is hashed or kept as the bytes that are sent.
 */
public final class Utf8Bytes extends Writer {
    private static final int DIGEST_CHUNK = 1024;
    /** The largest buffer a thread keeps for its next use. */
    private static final int KEPT = 64 * 1024;
    /** Each thread's buffer, lent to one instance at a time (null while lent): a change's bytes are copied out once. */
    private static final ThreadLocal<byte[]> SCRATCH = new ThreadLocal<>();

    private final MessageDigest digest;
    /** What a String is copied into, a piece at a time, to be written as characters. */
    private char[] chunk;
    private static final int CHUNK = 512;
    private byte[] buffer;
    private int count;
    /** A high surrogate written last, waiting for its low one; 0 for none. */
    private char high;

    private Utf8Bytes(MessageDigest digest, int capacity) {
        this.digest = digest;
        byte[] lent = SCRATCH.get();
        if (lent != null && lent.length >= capacity) {
            SCRATCH.set(null);
            this.buffer = lent;
        } else {
            this.buffer = new byte[Math.max(capacity, 16)];
        }
    }

    /** Gives the buffer back for the thread's next instance; this one is done. */
    private void giveBack() {
        byte[] done = buffer;
        buffer = null;
        byte[] kept = SCRATCH.get();
        if (done.length <= KEPT && (kept == null || kept.length < done.length)) {
            SCRATCH.set(done);
        }
    }

    /** Bytes kept, to be read by {@link #toByteArray}; {@code capacity} is a guess of how many. */
    public static Utf8Bytes array(int capacity) {
        return new Utf8Bytes(null, capacity);
    }

    /** Bytes hashed as they come, to be read by {@link #base64urlSha1}. */
    public static Utf8Bytes sha1() {
        try {
            return new Utf8Bytes(MessageDigest.getInstance("SHA-1"), DIGEST_CHUNK);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    @Override
    public void write(int c) {
        put((char) c);
    }

    // Runs of ASCII (nearly all a status is) are copied in a loop of their own, with no check per character: a
    // character at a time, this writer was half of what writing a change's event cost.

    @Override
    public void write(char[] chars, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            char c = chars[i];
            if (c >= 0x80 || high != 0) {
                put(c);
                i++;
                continue;
            }
            room(1);
            int stop = Math.min(end, i + buffer.length - count);
            byte[] bytes = buffer;
            int at = count;
            while (i < stop && (c = chars[i]) < 0x80) {
                bytes[at++] = (byte) c;
                i++;
            }
            count = at;
        }
    }

    @Override
    public void write(String text, int offset, int length) {
        if (chunk == null) {
            chunk = new char[CHUNK];
        }
        for (int at = offset, end = offset + length; at < end; at += CHUNK) {
            int n = Math.min(CHUNK, end - at);
            text.getChars(at, at + n, chunk, 0);
            write(chunk, 0, n);
        }
    }

    @Override
    public Utf8Bytes append(CharSequence text) {
        if (text instanceof String string) {
            write(string, 0, string.length());
            return this;
        }
        for (int i = 0, end = text.length(); i < end; i++) {
            put(text.charAt(i));
        }
        return this;
    }

    @Override
    public Utf8Bytes append(char c) {
        put(c);
        return this;
    }

    private void put(char c) {
        if (high != 0) {
            char pending = high;
            high = 0;
            if (Character.isLowSurrogate(c)) {
                int codePoint = Character.toCodePoint(pending, c);
                room(4);
                buffer[count++] = (byte) (0xF0 | codePoint >> 18);
                buffer[count++] = (byte) (0x80 | codePoint >> 12 & 0x3F);
                buffer[count++] = (byte) (0x80 | codePoint >> 6 & 0x3F);
                buffer[count++] = (byte) (0x80 | codePoint & 0x3F);
                return;
            }
            room(1);
            buffer[count++] = '?';
        }
        if (c < 0x80) {
            room(1);
            buffer[count++] = (byte) c;
        } else if (c < 0x800) {
            room(2);
            buffer[count++] = (byte) (0xC0 | c >> 6);
            buffer[count++] = (byte) (0x80 | c & 0x3F);
        } else if (Character.isHighSurrogate(c)) {
            high = c;
        } else if (Character.isLowSurrogate(c)) {
            room(1);
            buffer[count++] = '?';
        } else {
            room(3);
            buffer[count++] = (byte) (0xE0 | c >> 12);
            buffer[count++] = (byte) (0x80 | c >> 6 & 0x3F);
            buffer[count++] = (byte) (0x80 | c & 0x3F);
        }
    }

    private void room(int bytes) {
        if (count + bytes <= buffer.length) {
            return;
        }
        if (digest != null) {
            digest.update(buffer, 0, count);
            count = 0;
        } else {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, count + bytes));
        }
    }

    /** A high surrogate left at the end is unpaired: {@code ?}, as {@code String.getBytes} writes it. */
    private void end() {
        if (high != 0) {
            high = 0;
            room(1);
            buffer[count++] = '?';
        }
    }

    /** The bytes written (of {@link #array}); the end: nothing may be written after. */
    public byte[] toByteArray() {
        if (digest != null) {
            throw new IllegalStateException("the bytes went to the digest");
        }
        end();
        byte[] bytes = Arrays.copyOf(buffer, count);
        giveBack();
        return bytes;
    }

    /**
     * base64url (no padding) of the SHA-1 of the bytes written (of {@link #sha1}), as {@link SpecHash#base64urlSha1};
     * the end: nothing may be written after.
     */
    public String base64urlSha1() {
        if (digest == null) {
            throw new IllegalStateException("the bytes were kept, not hashed");
        }
        end();
        digest.update(buffer, 0, count);
        count = 0;
        giveBack();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(digest.digest());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
