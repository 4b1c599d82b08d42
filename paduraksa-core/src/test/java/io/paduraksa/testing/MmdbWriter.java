package io.paduraksa.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a small MaxMind DB file (format 2.0, https://maxmind.github.io/MaxMind-DB/) with country
 * records {@code {country: {iso_code: "DE"}}}, for tests: no writer library exists on Maven Central.
 * An IPv6 tree with 24-bit records; IPv4 networks sit under {@code ::/96}, where readers look
 * IPv4 addresses up. Networks must not overlap.
 */
public final class MmdbWriter {
    private static final byte[] METADATA_MARKER = {(byte) 0xAB, (byte) 0xCD, (byte) 0xEF,
            'M', 'a', 'x', 'M', 'i', 'n', 'd', '.', 'c', 'o', 'm'};

    private static final class Node {
        final Object[] child = new Object[2]; // Node, Integer (data offset) or null
        int number;
    }

    private final Node root = new Node();
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private final Map<String, Integer> offsets = new LinkedHashMap<>();
    private String databaseType = "Paduraksa-Test-Country";

    public MmdbWriter databaseType(String type) {
        this.databaseType = type;
        return this;
    }

    /** Maps {@code cidr} (like 198.51.100.0/24 or 2001:db8::/32) to {@code isoCode}. */
    public MmdbWriter add(String cidr, String isoCode) {
        return add(cidr, "country", isoCode);
    }

    /** Maps {@code cidr} to a record with only {@code registered_country}. */
    public MmdbWriter addRegistered(String cidr, String isoCode) {
        return add(cidr, "registered_country", isoCode);
    }

    private MmdbWriter add(String cidr, String section, String isoCode) {
        int slash = cidr.indexOf('/');
        byte[] address;
        try {
            address = InetAddress.getByName(cidr.substring(0, slash)).getAddress();
        } catch (IOException e) {
            throw new IllegalArgumentException(cidr, e);
        }
        int length = Integer.parseInt(cidr.substring(slash + 1));
        byte[] bits128 = new byte[16];
        int prefix = length;
        if (address.length == 4) {
            System.arraycopy(address, 0, bits128, 12, 4);
            prefix = 96 + length;
        } else {
            bits128 = address;
        }
        int offset = offsets.computeIfAbsent(section + ":" + isoCode, k -> record(section, isoCode));
        Node node = root;
        for (int i = 0; i < prefix; i++) {
            int bit = (bits128[i >> 3] >> (7 - (i & 7))) & 1;
            if (i == prefix - 1) {
                node.child[bit] = offset;
            } else {
                if (!(node.child[bit] instanceof Node)) {
                    node.child[bit] = new Node();
                }
                node = (Node) node.child[bit];
            }
        }
        return this;
    }

    private int record(String section, String isoCode) {
        int offset = data.size();
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("iso_code", isoCode);
        inner.put("names", Map.of("en", "Country " + isoCode));
        Map<String, Object> outer = new LinkedHashMap<>();
        outer.put(section, inner);
        encode(data, outer);
        return offset;
    }

    public void write(Path file) throws IOException {
        List<Node> nodes = new ArrayList<>();
        ArrayDeque<Node> queue = new ArrayDeque<>();
        queue.add(root);
        while (!queue.isEmpty()) {
            Node n = queue.poll();
            n.number = nodes.size();
            nodes.add(n);
            for (Object c : n.child) {
                if (c instanceof Node child) {
                    queue.add(child);
                }
            }
        }
        int count = nodes.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Node n : nodes) {
            for (Object c : n.child) {
                long value = c instanceof Node child ? child.number : c instanceof Integer offset ? count + 16L + offset : count;
                out.write((int) (value >>> 16));
                out.write((int) (value >>> 8));
                out.write((int) value);
            }
        }
        out.write(new byte[16]); // the data section separator
        data.writeTo(out);
        out.write(METADATA_MARKER);
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("node_count", new Uint(6, count));
        metadata.put("record_size", new Uint(5, 24));
        metadata.put("ip_version", new Uint(5, 6));
        metadata.put("database_type", databaseType);
        metadata.put("languages", List.of("en"));
        metadata.put("binary_format_major_version", new Uint(5, 2));
        metadata.put("binary_format_minor_version", new Uint(5, 0));
        metadata.put("build_epoch", new Uint(9, 1_767_225_600L));
        metadata.put("description", Map.of("en", "Paduraksa test countries"));
        encode(out, metadata);
        Files.write(file, out.toByteArray());
    }

    /** An unsigned integer of MaxMind type 5 (uint16), 6 (uint32) or 9 (uint64). */
    private record Uint(int type, long value) {
    }

    private static void encode(ByteArrayOutputStream out, Object value) {
        if (value instanceof String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            control(out, 2, bytes.length);
            out.writeBytes(bytes);
        } else if (value instanceof Uint u) {
            int size = (64 - Long.numberOfLeadingZeros(u.value) + 7) / 8;
            control(out, u.type, size);
            for (int i = size - 1; i >= 0; i--) {
                out.write((int) (u.value >>> (8 * i)));
            }
        } else if (value instanceof Map<?, ?> map) {
            control(out, 7, map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                encode(out, e.getKey());
                encode(out, e.getValue());
            }
        } else if (value instanceof List<?> list) {
            control(out, 11, list.size());
            for (Object item : list) {
                encode(out, item);
            }
        } else {
            throw new IllegalArgumentException("cannot encode " + value);
        }
    }

    /** Control byte: type in the top three bits (0 and a following byte for types above 7), size below 29. */
    private static void control(ByteArrayOutputStream out, int type, int size) {
        if (size >= 29) {
            throw new IllegalArgumentException("sizes from 29 up are not needed by these tests");
        }
        if (type <= 7) {
            out.write((type << 5) | size);
        } else {
            out.write(size);
            out.write(type - 7);
        }
    }
}
