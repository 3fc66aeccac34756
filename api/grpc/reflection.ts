// Server reflection over the services' .proto files, with descriptors that strict clients accept.
// protobufjs (under @grpc/proto-loader) names a map field's entry message after the field ("Statuses")
// instead of protoc's `<Field>Entry` ("StatusesEntry"); Go's protodesc (buf curl, grpcurl) refuses such a
// file as a whole, so a service using a map (grpc.health.v1.Health's List) could be listed but not
// called through reflection ("failed to find service named grpc.health.v1.Health in schema").
import type * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { FileDescriptorProto } from "protobufjs/ext/descriptor";

interface DescriptorMessage {
  name?: string;
  field?: { typeName?: string }[];
  nestedType?: DescriptorMessage[];
  options?: { mapEntry?: boolean };
}

/** Renames map entry messages to protoc's `<Field>Entry` and points their fields at the new name. */
function fixMapEntries(message: DescriptorMessage): void {
  for (const nested of message.nestedType ?? []) {
    fixMapEntries(nested);
    if (!nested.options?.mapEntry || !nested.name || nested.name.endsWith("Entry")) continue;
    const old = nested.name;
    nested.name = `${old}Entry`;
    for (const f of message.field ?? []) {
      if (f.typeName === old) f.typeName = nested.name;
      else if (f.typeName?.endsWith(`.${message.name}.${old}`))
        f.typeName = `${f.typeName.slice(0, -old.length)}${nested.name}`;
    }
  }
}

/** The file descriptors of one package definition with protoc's map entry names. */
export function withProtocMapEntries(def: protoLoader.PackageDefinition): protoLoader.PackageDefinition {
  const out: protoLoader.PackageDefinition = {};
  for (const [name, value] of Object.entries(def)) {
    const files = (value as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos;
    if (!Array.isArray(files)) {
      out[name] = value;
      continue;
    }
    const fixed = files.map((bin) => {
      const file = FileDescriptorProto.decode(bin) as unknown as { messageType?: DescriptorMessage[] };
      for (const m of file.messageType ?? []) fixMapEntries(m);
      return Buffer.from(FileDescriptorProto.encode(file as never).finish());
    });
    out[name] = { ...value, fileDescriptorProtos: fixed } as typeof value;
  }
  return out;
}

/** Adds grpc.reflection (v1 and v1alpha) describing every service of `protoPaths` to `server`. */
export function addReflection(server: grpc.Server, protoPaths: string[]): void {
  new ReflectionService(withProtocMapEntries(protoLoader.loadSync(protoPaths, { keepCase: true }))).addToServer(server);
}
