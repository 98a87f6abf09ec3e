package dev.baton;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** The default {@link CompressionProvider}: GZIP, readable by Curator's GZIP provider. Thread-safe. */
public final class GzipCompressionProvider implements CompressionProvider {

    /** Creates the provider. */
    public GzipCompressionProvider() {
    }

    @Override
    public byte[] compress(String path, byte[] data) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(Math.max(32, data.length / 2));
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen in memory
        }
        return bytes.toByteArray();
    }

    @Override
    public byte[] decompress(String path, byte[] compressed) {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalArgumentException("data of " + path + " is not GZIP-compressed: " + e.getMessage(), e);
        }
    }
}
