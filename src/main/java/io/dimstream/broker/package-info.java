/** The embedded single-node KRaft Kafka broker and the creation of a dimension's topics on any cluster. */
package io.dimstream.broker;
