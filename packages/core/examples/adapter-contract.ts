import type { AuditLog, ConnectionRepository } from "@sdwan-connections/core";
import { describeConnectionRepositoryContract } from "@sdwan-connections/core/contract";

// An adapter's own parts, declared so that the README's snippet below compiles as written (examples/embed.spec.ts).
declare const client: unknown;
declare const createMyConnectionRepository: (client: unknown) => ConnectionRepository;
declare const createMyAuditLog: (client: unknown) => AuditLog;
declare const truncate: (client: unknown) => Promise<void>;
declare const rawDumpOfWhatIsStored: (client: unknown) => Promise<string>;

// Not imported by any test: this file is only compiled (the contract suite runs where an adapter's tests call it).
describeConnectionRepositoryContract("MyConnectionRepository", {
  make: async () => createMyConnectionRepository(client), // every call sees the same store
  reset: async () => truncate(client),
  peek: async () => rawDumpOfWhatIsStored(client), // read around the adapter
  audit: async () => createMyAuditLog(client), // the audit log the repository's writes record their entries in
});
