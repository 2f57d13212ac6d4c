/** The public test kit: drive a dimension's topology in your own tests and generate realistic change streams. */
package io.dimstream.testkit;
