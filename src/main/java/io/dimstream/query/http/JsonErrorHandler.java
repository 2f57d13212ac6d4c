package io.dimstream.query.http;

import io.dimstream.query.QueryErrors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/** Answers the errors Jetty finds itself (a malformed request line or URI, headers too large) as our JSON errors. */
final class JsonErrorHandler extends ErrorHandler {
  @Override
  protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
      Callback callback) throws IOException {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    String detail = code == 400 && isBadPercentEncoding(cause) ? QueryErrors.malformedUrl("it has a '%' that is not "
        + "followed by two hex digits").getMessage() : null;
    byte[] body = detail != null ? Exchange.errorJson("bad_input", detail).getBytes(StandardCharsets.UTF_8)
        : json(code, message);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /** Jetty's URI parser rejects a malformed escape with a bare "Bad Request"; the cause tells it apart. */
  private static boolean isBadPercentEncoding(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (t instanceof IllegalArgumentException && (m.contains("% encoding") || m.startsWith("!hex"))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    fields.put(new HttpField(HttpHeader.CONTENT_TYPE, "application/json"));
    return ByteBuffer.wrap(json(status, reason));
  }

  private static byte[] json(int status, String reason) {
    String error = status == 400 ? "bad_input" : HttpStatus.getMessage(status).toLowerCase(java.util.Locale.ROOT)
        .replaceAll("[^a-z0-9]+", "_");
    String message = "The request was rejected before it reached a route (HTTP " + status + " "
        + HttpStatus.getMessage(status) + (reason == null || reason.equals(HttpStatus.getMessage(status)) ? ""
        : ": " + reason) + "). "
        + hint(status);
    return Exchange.errorJson(error, message).getBytes(StandardCharsets.UTF_8);
  }

  private static String hint(int status) {
    return switch (status) {
      case 431 -> "Send fewer or shorter headers (at most 8 KiB in all).";
      case 414 -> "Send a shorter URL (at most 8 KiB with the headers).";
      case 408 -> "Send the whole request at once.";
      default -> "Send a well-formed HTTP/1.1 GET with a percent-encoded UTF-8 URL, e.g. "
          + "GET /dimensions/{dim}/keys/{key}.";
    };
  }
}
