package dev.baton.recipes.queue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The data of an item node, as Curator writes it: a 4-byte version {@code 0x00010001}, then for each item the
 * opcode byte {@code 0x01}, a 4-byte big-endian length and the serialized item, and finally the opcode byte
 * {@code 0x02}. A single {@code put} is a node with one item; {@code putMulti} one with several. Bytes after the
 * end opcode are ignored.
 */
final class ItemCodec {
    static final int VERSION = 0x00010001;
    private static final byte ITEM = 0x01;
    private static final byte END = 0x02;

    private ItemCodec() {
    }

    /** Encodes the items {@code source} gives until it returns null; at least one item is required. */
    static <T> byte[] encode(MultiItem<T> source, QueueSerializer<T> serializer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(VERSION);
            for (T item = next(source); item != null; item = next(source)) {
                byte[] b = serializer.serialize(item);
                if (b == null) {
                    throw new IllegalStateException("the serializer returned null for " + item);
                }
                out.writeByte(ITEM);
                out.writeInt(b.length);
                out.write(b);
            }
            out.writeByte(END);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not thrown by an in-memory stream
        }
        return bytes.toByteArray();
    }

    /** Encodes one item. */
    static <T> byte[] encodeOne(T item, QueueSerializer<T> serializer) {
        Object[] left = {item};
        return encode(() -> {
            // The array holds only the item passed in, a T.
            @SuppressWarnings("unchecked")
            T next = (T) left[0];
            left[0] = null;
            return next;
        }, serializer);
    }

    /**
     * Decodes an item node's data.
     *
     * @throws IOException if the data is not in the format
     */
    static <T> List<T> decode(byte[] data, QueueSerializer<T> serializer) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        int version = in.readInt();
        if (version != VERSION) {
            throw new IOException(String.format("unknown item format version 0x%08X", version));
        }
        List<T> items = new ArrayList<>(1);
        while (true) {
            byte op = in.readByte();
            if (op == END) {
                return items;
            }
            if (op != ITEM) {
                throw new IOException("unknown item opcode " + op);
            }
            int length = in.readInt();
            if (length < 0 || length > in.available()) {
                throw new IOException("bad item length " + length);
            }
            byte[] b = new byte[length];
            in.readFully(b);
            items.add(serializer.deserialize(b));
        }
    }

    private static <T> @Nullable T next(MultiItem<T> source) {
        try {
            return source.nextItem();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the multi-item failed: " + e, e);
        }
    }
}
