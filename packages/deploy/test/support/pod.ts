import type { IDeployment } from "kubernetes-models/apps/v1";
import type { IConfigMap, IContainer, IPodSpec } from "kubernetes-models/v1";
import type { Manifest } from "./kustomize.js";

/** The one object of `kind` named `name` among `objects` (throws when there is not exactly one). */
export const find = <T>(objects: readonly Manifest[], kind: string, name = "sdwan-connections"): T => {
  const found = objects.filter((object) => object.kind === kind && object.metadata.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind}/${name}, found ${found.length}`);
  return found[0] as unknown as T;
};

export const podSpec = (objects: readonly Manifest[]): IPodSpec => {
  const spec = find<IDeployment>(objects, "Deployment").spec?.template.spec;
  if (spec === undefined) throw new Error("the Deployment has no pod template");
  return spec;
};

/** The service's container (the pod's only one). */
export const serviceContainer = (objects: readonly Manifest[]): IContainer => {
  const [container, ...others] = podSpec(objects).containers;
  if (container === undefined || others.length > 0) throw new Error("the pod must run exactly one container");
  return container;
};

/** Secret values by `<secret name>/<key>`, as a cluster would hold them. */
export type Secrets = Readonly<Record<string, string>>;

/**
 * The container's environment as the kubelet would set it: `envFrom` ConfigMaps
 * first, then `env` (literal values, ConfigMap and Secret keys). A reference to a
 * missing key fails, unless marked optional (then the variable is left out).
 */
export const resolveEnvironment = (objects: readonly Manifest[], secrets: Secrets): Record<string, string> => {
  const container = serviceContainer(objects);
  const configMap = (name: string) => find<IConfigMap>(objects, "ConfigMap", name).data ?? {};
  const environment: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef?.name === undefined) throw new Error("envFrom: only ConfigMaps are expected");
    Object.assign(environment, configMap(source.configMapRef.name));
  }
  for (const variable of container.env ?? []) {
    const configKey = variable.valueFrom?.configMapKeyRef;
    const secretKey = variable.valueFrom?.secretKeyRef;
    const value =
      variable.value ??
      (configKey !== undefined ? configMap(configKey.name ?? "")[configKey.key] : undefined) ??
      (secretKey !== undefined ? secrets[`${secretKey.name}/${secretKey.key}`] : undefined);
    if (value !== undefined) environment[variable.name] = value;
    else if (configKey?.optional !== true && secretKey?.optional !== true)
      throw new Error(`${variable.name}: its value is missing`);
  }
  return environment;
};

const UNITS: Readonly<Record<string, number>> = { "": 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };

/** A Kubernetes memory quantity (`512Mi`) in bytes. */
export const bytesOf = (quantity: string | number): number => {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(String(quantity));
  if (match === null) throw new Error(`unsupported memory quantity ${quantity}`);
  return Number(match[1]) * (UNITS[match[2] ?? ""] ?? 1);
};

/** What `docker run` needs to start the container as the pod would. */
export interface ContainerRun {
  readonly environment: Record<string, string>;
  /** `uid:gid` */
  readonly user: string;
  readonly readOnlyRootFilesystem: boolean;
  /** Where the pod mounts a writable volume (tmpfs in a rehearsal). */
  readonly writablePaths: readonly string[];
  readonly memoryLimitBytes: number;
  readonly preStopSeconds: number;
  readonly terminationGracePeriodSeconds: number;
}

export const containerRun = (objects: readonly Manifest[], secrets: Secrets): ContainerRun => {
  const spec = podSpec(objects);
  const container = serviceContainer(objects);
  const memory = container.resources?.limits?.["memory"];
  if (memory === undefined) throw new Error("the container has no memory limit");
  const uid = container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
  const gid = container.securityContext?.runAsGroup ?? spec.securityContext?.runAsGroup;
  if (uid === undefined || gid === undefined) throw new Error("the pod must name its user and group");
  return {
    environment: resolveEnvironment(objects, secrets),
    user: `${uid}:${gid}`,
    readOnlyRootFilesystem: container.securityContext?.readOnlyRootFilesystem === true,
    writablePaths: (container.volumeMounts ?? [])
      .filter((mount) => mount.readOnly !== true)
      .map((mount) => mount.mountPath),
    memoryLimitBytes: bytesOf(memory),
    preStopSeconds: container.lifecycle?.preStop?.sleep?.seconds ?? 0,
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
  };
};
