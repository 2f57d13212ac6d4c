package io.dimstream.query.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** One request with its response: what the router and the handlers read, and the only ways they answer. */
record Exchange(Request request, Response response, Callback callback) {
  private static final ObjectMapper JSON = new ObjectMapper();

  String method() {
    return request.getMethod();
  }

  String rawPath() {
    return request.getHttpURI().getPath();
  }

  String rawQuery() {
    return request.getHttpURI().getQuery();
  }

  URI uri() {
    return request.getHttpURI().toURI();
  }

  String header(String name) {
    return request.getHeaders().get(name);
  }

  void addHeader(String name, String value) {
    response.getHeaders().add(name, value);
  }

  /** The JSON body of every error answer: {@code {"error": code, "message": what, why, how to fix}}. */
  static String errorJson(String error, String message) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("error", error);
    n.put("message", message);
    return n.toString();
  }

  void sendError(int status, String error, String message) {
    send(status, "application/json", errorJson(error, message).getBytes(StandardCharsets.UTF_8));
  }

  void sendJson(int status, Object body) throws JsonProcessingException {
    send(status, "application/json", JSON.writeValueAsBytes(body));
  }

  void send(int status, String contentType, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    // completes asynchronously: a client that reads slowly holds no thread, only the idle timeout's clock
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
