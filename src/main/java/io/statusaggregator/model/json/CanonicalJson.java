package io.statusaggregator.model.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;

/**
 * A value's canonical JSON text ({@link SpecHash}: keys sorted, no whitespace, escaped as Jackson escapes) written from
 * its tokens as a streaming parser reads them, so that a spec is hashed without a tree. It writes only what it can
 * write exactly as the tree's sorted writer would; on a value it cannot (a fraction, a repeated key, more than
 * {@value #MEMBERS} keys in the objects open at one time) it has no {@link #hash}, and the caller hashes the tree
 * ({@code CanonicalJsonTest} holds the two to the same text). Not thread-safe; reused value after value.
 */
final class CanonicalJson {
    /**
     * The most keys it holds, over the objects open at one time (sorted by insertion): a spec's objects have a handful.
     */
    static final int MEMBERS = 64;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** The largest buffer kept from one value for the next. */
    static final int KEPT = 64 * 1024;

    private char[] text = new char[1024];
    private int size;
    /** The text of an object's members, copied aside while they are written back in order. */
    private char[] aside = new char[1024];

    // The open containers, innermost last: where each one's text starts, its first member (objects) and its items
    // so far (lists, for the commas).
    private int depth;
    private int[] start = new int[16];
    private int[] firstMember = new int[16];
    private int[] items = new int[16];
    private boolean[] isObject = new boolean[16];

    // The members of the open objects, innermost last: each one's key and where its value's text starts (it ends where
    // the next one's starts, or at the end of the text).
    private int members;
    private final String[] keys = new String[MEMBERS];
    private final int[] valueAt = new int[MEMBERS];
    private final int[] order = new int[MEMBERS];

    private boolean exact;
    private boolean complete;

    /** Starts a new value; a buffer grown past {@value #KEPT} characters by a large one is let go. */
    void reset() {
        if (text.length > KEPT) {
            text = new char[1024];
        }
        if (aside.length > KEPT) {
            aside = new char[1024];
        }
        size = 0;
        depth = 0;
        members = 0;
        exact = true;
        complete = false;
    }

    /** Starts a new value at the parser's current token, the value's first, and reads it on from there. */
    Tokens recording(JsonParser parser) throws IOException {
        reset();
        token(parser, parser.currentToken());
        return new Tokens(parser);
    }

    /**
     * base64url of the SHA-1 of the text's UTF-8 ({@link SpecHash#of}); empty when a token was one it cannot write as
     * the tree would, or the value is not complete.
     */
    Optional<String> hash() {
        if (!exact || !complete) {
            return Optional.empty();
        }
        Utf8Bytes sha1 = Utf8Bytes.sha1();
        sha1.write(text, 0, size);
        return Optional.of(sha1.base64urlSha1());
    }

    /** The text written (for tests). */
    String text() {
        return new String(text, 0, size);
    }

    void token(JsonParser parser, JsonToken token) throws IOException {
        if (!exact || complete || token == null) {
            return;
        }
        switch (token) {
            case FIELD_NAME -> member(parser.currentName());
            case START_OBJECT -> open(true);
            case START_ARRAY -> {
                open(false);
                put('[');
            }
            case END_OBJECT -> closeObject();
            case END_ARRAY -> {
                put(']');
                depth--;
                closed();
            }
            case VALUE_STRING -> {
                item();
                quoted(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
                closed();
            }
            case VALUE_NUMBER_INT -> {
                item();
                // The tree keeps an int, a long or a big integer and writes its shortest form, which is the text read
                // (JSON allows no leading zero or plus) but for minus zero.
                int length = parser.getTextLength();
                room(length);
                System.arraycopy(parser.getTextCharacters(), parser.getTextOffset(), text, size, length);
                if (length == 2 && text[size] == '-' && text[size + 1] == '0') {
                    text[size] = '0';
                    length = 1;
                }
                size += length;
                closed();
            }
            case VALUE_TRUE, VALUE_FALSE, VALUE_NULL -> {
                item();
                put(token.asString());
                closed();
            }
            default -> exact = false; // a fraction (the tree's double has its own form), or not JSON's
        }
    }

    private void member(String key) {
        if (members == MEMBERS) {
            exact = false;
            return;
        }
        keys[members] = key;
        valueAt[members++] = size;
    }

    /** Before a value: a comma if it is a list's item after the first. */
    private void item() {
        if (depth > 0 && !isObject[depth - 1] && items[depth - 1]++ > 0) {
            put(',');
        }
    }

    private void open(boolean object) {
        item();
        if (depth == start.length) {
            start = Arrays.copyOf(start, depth * 2);
            firstMember = Arrays.copyOf(firstMember, depth * 2);
            items = Arrays.copyOf(items, depth * 2);
            isObject = Arrays.copyOf(isObject, depth * 2);
        }
        start[depth] = size;
        firstMember[depth] = members;
        items[depth] = 0;
        isObject[depth++] = object;
    }

    /** The value's last token was read: the value is complete when it was the outermost. */
    private void closed() {
        complete = depth == 0;
    }

    /** Writes the object's members again, sorted by key as a {@code TreeMap} of them is ({@code String.compareTo}). */
    private void closeObject() {
        int at = start[--depth];
        int first = firstMember[depth];
        int n = members - first;
        for (int i = 0; i < n; i++) {
            int member = first + i;
            int j = i;
            while (j > 0 && keys[order[j - 1]].compareTo(keys[member]) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            if (j > 0 && keys[order[j - 1]].equals(keys[member])) {
                exact = false; // a repeated key: the tree keeps the last one's value
                return;
            }
            order[j] = member;
        }
        int length = size - at;
        if (aside.length < length) {
            aside = new char[Math.max(length, aside.length * 2)];
        }
        System.arraycopy(text, at, aside, 0, length);
        size = at;
        put('{');
        for (int i = 0; i < n; i++) {
            int member = order[i];
            int from = valueAt[member] - at;
            int to = (member + 1 < members ? valueAt[member + 1] : at + length) - at;
            if (i > 0) {
                put(',');
            }
            String key = keys[member];
            quoted(key);
            put(':');
            room(to - from);
            System.arraycopy(aside, from, text, size, to - from);
            size += to - from;
        }
        put('}');
        members = first;
        closed();
    }

    private void quoted(String key) {
        int length = key.length();
        room(length + 2);
        char[] to = text;
        int at = size;
        to[at++] = '"';
        for (int i = 0; i < length; i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                quoted(key.toCharArray(), 0, length); // written again, escaped
                return;
            }
            to[at++] = c;
        }
        to[at++] = '"';
        size = at;
    }

    /** A string as Jackson's writer escapes it: control characters, quote and backslash; all else as it is. */
    private void quoted(char[] chars, int offset, int length) {
        room(length + 2);
        text[size++] = '"';
        for (int i = offset, end = offset + length; i < end; i++) {
            char c = chars[i];
            if (c >= 0x20 && c != '"' && c != '\\') {
                text[size++] = c;
                continue;
            }
            room(end - i + 6);
            text[size++] = '\\';
            switch (c) {
                case '"', '\\' -> text[size++] = c;
                case '\b' -> text[size++] = 'b';
                case '\t' -> text[size++] = 't';
                case '\n' -> text[size++] = 'n';
                case '\f' -> text[size++] = 'f';
                case '\r' -> text[size++] = 'r';
                default -> {
                    text[size++] = 'u';
                    text[size++] = '0';
                    text[size++] = '0';
                    text[size++] = HEX[c >> 4];
                    text[size++] = HEX[c & 0xF];
                }
            }
        }
        text[size++] = '"';
    }

    private void put(char c) {
        room(1);
        text[size++] = c;
    }

    private void put(String s) {
        room(s.length());
        s.getChars(0, s.length(), text, size);
        size += s.length();
    }

    private void room(int chars) {
        if (size + chars > text.length) {
            text = Arrays.copyOf(text, Math.max(text.length * 2, size + chars));
        }
    }

    /**
     * A parser read on through this writer: every token it moves to, skipped ones included, is written. Not a
     * {@code JsonParser} of its own: the readers' calls on a parser then stay on the one class the JIT has seen there.
     */
    final class Tokens {
        /** The parser, to take the current token's value from; moved on only through this. */
        final JsonParser parser;

        private Tokens(JsonParser parser) {
            this.parser = parser;
        }

        JsonToken nextToken() throws IOException {
            JsonToken token = parser.nextToken();
            token(parser, token);
            return token;
        }

        /** The next field's name, or null at the object's end (the parser's own, quicker than a token at a time). */
        String nextFieldName() throws IOException {
            String name = parser.nextFieldName();
            token(parser, parser.currentToken());
            return name;
        }

        /** Reads past the object or list that starts at the current token; nothing for any other token. */
        void skipChildren() throws IOException {
            JsonToken current = parser.currentToken();
            if (current != JsonToken.START_OBJECT && current != JsonToken.START_ARRAY) {
                return;
            }
            for (int open = 1; open > 0; ) {
                JsonToken token = nextToken();
                if (token == null) {
                    return;
                }
                if (token.isStructStart()) {
                    open++;
                } else if (token.isStructEnd()) {
                    open--;
                }
            }
        }
    }
}
