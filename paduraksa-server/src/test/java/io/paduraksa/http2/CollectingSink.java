package io.paduraksa.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/** Test sink: copies each field out as "name: value" (ISO-8859-1), so fields can be compared as text. */
final class CollectingSink implements HpackFieldSink {
    final List<String> fields = new ArrayList<>();
    final List<Integer> staticIndices = new ArrayList<>();
    private final List<Boolean> pseudo = new ArrayList<>();

    @Override
    public void field(ByteBuf name, int nameIndex, int nameLength, ByteBuf value, int valueIndex, int valueLength,
            int staticIndex) {
        fields.add(name.toString(nameIndex, nameLength, ISO_8859_1) + ": " + value.toString(valueIndex, valueLength, ISO_8859_1));
        staticIndices.add(staticIndex);
        pseudo.add(nameLength > 0 && name.getByte(nameIndex) == ':');
    }

    /**
     * The fields as Netty's {@code DefaultHttp2Headers} iterates them: pseudo-headers first (it keeps
     * them ahead of regular fields whatever the order received), each group in order.
     */
    String normalized() {
        List<String> pseudo = new ArrayList<>();
        List<String> regular = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            (this.pseudo.get(i) ? pseudo : regular).add(fields.get(i));
        }
        pseudo.addAll(regular);
        return String.join("\n", pseudo);
    }
}
