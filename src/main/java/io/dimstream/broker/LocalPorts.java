package io.dimstream.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Free TCP ports on 127.0.0.1 (a port found free may be taken by another process before it is used). */
final class LocalPorts {
  static final String HOST = "127.0.0.1";

  private LocalPorts() {}

  static int free() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + HOST, e);
    }
  }

  static boolean isFree(int port) {
    if (port <= 0 || port > 65535) {
      return false;
    }
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getByName(HOST), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The remembered port when it is still free, else a new free one. */
  static int reuseOrFree(int remembered) {
    return isFree(remembered) ? remembered : free();
  }
}
