// Reads an Engram topic (memory-updated by default) from Node.js and prints one JSON line per record.
// Decodes both wire formats Engram writes (serde.format): Avro single-object encoding (C3 01, the writer schema's
// CRC-64-AVRO fingerprint, the body), matched against the schemas `bin/engram schemas export DIR` wrote; and the
// schema registry's (magic byte 0, 4-byte schema id, the body), the writer schema fetched from the registry by id.
//
//   bin/engram schemas export /tmp/engram-schemas
//   npm install && SCHEMAS=/tmp/engram-schemas BOOTSTRAP=localhost:9092 node consumer.js
//
// Settings (environment): BOOTSTRAP (localhost:9092), TOPIC (memory-updated), SCHEMAS (the exported directory),
// REGISTRY_URL (for serde.format=registry), GROUP (a consumer group; default: none, read from the beginning),
// MAX (stop after that many records; default: run until Ctrl-C).
'use strict';

const fs = require('fs');
const path = require('path');
const avro = require('avsc');
const { Kafka, logLevel } = require('kafkajs');

const BOOTSTRAP = (process.env.BOOTSTRAP || 'localhost:9092').split(',');
const TOPIC = process.env.TOPIC || 'memory-updated';
const SCHEMAS = process.env.SCHEMAS || path.join(process.cwd(), 'schemas');
const REGISTRY_URL = process.env.REGISTRY_URL;
const MAX = process.env.MAX ? Number(process.env.MAX) : Infinity;

// CRC-64-AVRO (Rabin), the fingerprint of single-object encoding, over the schema's Parsing Canonical Form.
const EMPTY = 0xc15d213aa4d7a795n;
const TABLE = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) {
    fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n));
  }
  return fp;
});
function rabin(text) {
  let fp = EMPTY;
  for (const b of Buffer.from(text, 'utf8')) {
    fp = (fp >> 8n) ^ TABLE[Number((fp ^ BigInt(b)) & 0xffn)];
  }
  return fp;
}

// The reader schema of the topic, and every writer schema a single-object record may carry, by fingerprint:
// the current one and the earlier releases' (avro-history/).
const reader = avro.Type.forSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, `${TOPIC}-value.avsc`), 'utf8')));
const writers = new Map();
function addWriter(type) {
  writers.set(rabin(JSON.stringify(type.schema())), type);
}
addWriter(reader);
const historyDir = path.join(SCHEMAS, 'avro-history');
if (fs.existsSync(historyDir)) {
  for (const file of fs.readdirSync(historyDir).filter((f) => f.endsWith('.avsc'))) {
    const type = avro.Type.forSchema(JSON.parse(fs.readFileSync(path.join(historyDir, file), 'utf8')));
    if (type.name === reader.name) {
      addWriter(type);
    }
  }
}

const registryTypes = new Map();
async function registryType(id) {
  if (!registryTypes.has(id)) {
    if (!REGISTRY_URL) {
      throw new Error(`a registry-format record (schema id ${id}) and no REGISTRY_URL`);
    }
    const answer = await fetch(`${REGISTRY_URL.replace(/\/$/, '')}/schemas/ids/${id}`);
    if (!answer.ok) {
      throw new Error(`the registry answered ${answer.status} for schema id ${id}`);
    }
    registryTypes.set(id, avro.Type.forSchema(JSON.parse((await answer.json()).schema)));
  }
  return registryTypes.get(id);
}

async function decode(value) {
  if (value.length >= 10 && value[0] === 0xc3 && value[1] === 0x01) {
    const writer = writers.get(value.readBigUInt64LE(2));
    if (!writer) {
      throw new Error(`unknown writer fingerprint ${value.readBigUInt64LE(2).toString(16)}: export the schemas of this release`);
    }
    const body = value.subarray(10);
    return writer === reader ? reader.fromBuffer(body) : reader.fromBuffer(body, reader.createResolver(writer));
  }
  if (value.length >= 5 && value[0] === 0) {
    const writer = await registryType(value.readInt32BE(1));
    return reader.fromBuffer(value.subarray(5), reader.createResolver(writer));
  }
  if (value.length >= 4 && value[0] === 0xe5 && value[1] === 0x01) {
    // Crypto-shredding (crypto.enabled=true, the default and the demo's): the Avro record is sealed with the user's
    // data key (Tink AES-256-SIV) kept on engram-data-keys, wrapped by the KEK. Opening it takes the KEK, the key topic
    // and Tink's deterministic AEAD, none of which this example has (docs/api.md, "Reading sealed topics").
    const userKey = value.subarray(4, 4 + value.readUInt16BE(2)).toString('utf8');
    throw new Error(`sealed record of user ${userKey} (E5 01: crypto.enabled=true): this consumer cannot open it; read `
      + 'the memories over the retriever\'s HTTP API, from a JVM with the KEK, or run Engram with crypto.enabled=false '
      + '(see README.md, "Sealed records")');
  }
  throw new Error('neither single-object encoding (C3 01), the registry format (00) nor a sealed record (E5 01)');
}

async function main() {
  const kafka = new Kafka({ clientId: 'engram-node-consumer', brokers: BOOTSTRAP, logLevel: logLevel.WARN });
  const consumer = kafka.consumer({ groupId: process.env.GROUP || `engram-node-consumer-${process.pid}` });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  let seen = 0;
  let stopping = false;
  const stop = async () => {
    if (!stopping) {
      stopping = true;
      await consumer.disconnect();
    }
  };
  process.on('SIGINT', stop);
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      if (stopping || seen >= MAX) {
        return;
      }
      seen++;
      const key = message.key ? message.key.toString('utf8') : null;
      try {
        const record = await decode(message.value);
        // BigInt-free JSON: Avro longs decode as JS numbers (timestamps in ms fit)
        console.log(JSON.stringify({ partition, offset: message.offset, key, value: record }));
      } catch (e) {
        console.log(JSON.stringify({ partition, offset: message.offset, key, error: e.message }));
      }
      if (seen >= MAX) {
        setImmediate(stop);
      }
    },
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
