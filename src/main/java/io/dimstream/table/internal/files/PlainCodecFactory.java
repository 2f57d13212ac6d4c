package io.dimstream.table.internal.files;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/** Parquet page compression with zstd-jni and snappy-java directly, so no Hadoop codec class is loaded. */
public final class PlainCodecFactory implements CompressionCodecFactory {
  public static final PlainCodecFactory INSTANCE = new PlainCodecFactory();
  private static final int ZSTD_LEVEL = 3;

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return new BytesInputCompressor() {
      @Override
      public BytesInput compress(BytesInput bytes) throws IOException {
        return switch (codec) {
          case UNCOMPRESSED -> bytes;
          case SNAPPY -> BytesInput.from(Snappy.compress(bytes.toByteArray()));
          case ZSTD -> BytesInput.from(Zstd.compress(bytes.toByteArray(), ZSTD_LEVEL));
          default -> throw new IOException("unsupported Parquet codec " + codec + "; use zstd, snappy or none");
        };
      }

      @Override
      public CompressionCodecName getCodecName() {
        return codec;
      }

      @Override
      public void release() {}
    };
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return new BytesInputDecompressor() {
      @Override
      public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
        return switch (codec) {
          case UNCOMPRESSED -> bytes;
          case SNAPPY -> BytesInput.from(Snappy.uncompress(bytes.toByteArray()));
          case ZSTD -> BytesInput.from(Zstd.decompress(bytes.toByteArray(), uncompressedSize));
          default -> throw new IOException("unsupported Parquet codec " + codec + " in a data file");
        };
      }

      @Override
      public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
          throws IOException {
        byte[] in = new byte[compressedSize];
        input.get(in);
        output.put(decompress(BytesInput.from(in), uncompressedSize).toByteBuffer());
      }

      @Override
      public void release() {}
    };
  }

  @Override
  public void release() {}
}
