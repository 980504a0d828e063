import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor";
import { ExternalSecret } from "@kubernetes-models/external-secrets/external-secrets.io/v1/ExternalSecret";
import { SecretStore } from "@kubernetes-models/external-secrets/external-secrets.io/v1/SecretStore";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { type IIngress, type INetworkPolicy, Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { type IPodDisruptionBudget, PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, type IConfigMap, type IService, PersistentVolumeClaim, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import {
  EXAMPLES,
  type Manifest,
  OVERLAYS,
  PACKAGE_ROOT,
  readExample,
  render,
  renderOverlay,
} from "./support/kustomize.js";
import { bytesOf, find, podSpec, resolveEnvironment, serviceContainer } from "./support/pod.js";

const REPO_ROOT = join(PACKAGE_ROOT, "../..");

/** The typed model (and so the API schema) of every kind the manifests may hold. */
const MODELS: Readonly<Record<string, new (data: never) => { validate(): void }>> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Service": Service,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "apps/v1/Deployment": Deployment,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "networking.k8s.io/v1/Ingress": Ingress,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
  "external-secrets.io/v1/ExternalSecret": ExternalSecret,
  "external-secrets.io/v1/SecretStore": SecretStore,
};

/** The variables of docs/interface.md §6's configuration table. */
const documentedVariables = (): Set<string> => {
  const text = readFileSync(join(REPO_ROOT, "docs/interface.md"), "utf8");
  const section = text.slice(text.indexOf("## 6."), text.indexOf("## 7."));
  const firstCells = section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split("|")[1] ?? "");
  return new Set(firstCells.flatMap((cell) => cell.match(/SDWAN_[A-Z_]+/g) ?? []));
};

/** Variables whose values are secrets: only ever referenced from a Secret. */
const SECRET_VARIABLES = [
  "SDWAN_MASTER_KEY",
  "SDWAN_MASTER_KEY_PREVIOUS",
  "SDWAN_ADMIN_PASSWORD",
  "SDWAN_DATABASE_URL",
];

/** The service image's package: the image tag is its version. */
const imageVersion = (): string =>
  (JSON.parse(readFileSync(join(REPO_ROOT, "packages/http-express/package.json"), "utf8")) as { version: string })
    .version;

/** `USER uid:gid` of packages/http-express/Dockerfile. */
const imageUser = (): string =>
  /^USER (\d+:\d+)$/m.exec(readFileSync(join(REPO_ROOT, "packages/http-express/Dockerfile"), "utf8"))?.[1] ?? "";

/** Volume types the PodSecurity `restricted` profile allows. */
const RESTRICTED_VOLUMES = [
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
];

const labelsMatch = (
  selector: Readonly<Record<string, string>> | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

// Issue 30: the CLI was not in the image, so apply, export and key rotation needed the database and the master key outside the cluster.
describe("the image (packages/http-express/Dockerfile)", () => {
  it("carries the CLI on the PATH, as the installable bundle packages/cli builds, for `kubectl exec … -- sdwan-connections`", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, "packages/http-express/Dockerfile"), "utf8");
    const bundle = readFileSync(join(REPO_ROOT, "packages/cli/scripts/bundle.ts"), "utf8");
    const bin = /const BIN = "([^"]+)"/.exec(bundle)?.[1];
    expect(dockerfile).toMatch(/^RUN pnpm --filter @sdwan-connections\/cli run build/m);
    const copied = /^COPY --from=build \/src\/packages\/cli\/dist\/pack (\S+)$/m.exec(dockerfile)?.[1];
    expect(copied).toBeDefined();
    expect(dockerfile).toContain(`RUN ln -s ${copied}/${bin} /usr/local/bin/sdwan-connections`);
    expect(bundle).toContain('bin: { "sdwan-connections": BIN }');
    // In the runtime stage, before the image's user is set (root writes /usr/local/bin).
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("FROM "));
    expect(runtime.indexOf("/usr/local/bin/sdwan-connections")).toBeGreaterThan(0);
    expect(runtime.indexOf("/usr/local/bin/sdwan-connections")).toBeLessThan(runtime.indexOf("USER "));
  });
});

describe("the test renderer", () => {
  it("refuses kustomization fields it does not implement, so the manifests stay within what is tested", () => {
    const directory = mkdtempSync(join(tmpdir(), "kustomize-"));
    writeFileSync(join(directory, "kustomization.yaml"), "resources: []\nnamePrefix: x-\n");
    expect(() => render(directory)).toThrow(/namePrefix not supported/);
  });
});

describe.each(OVERLAYS)("overlay %s, as `kubectl apply -k` renders it", (overlay) => {
  const objects = renderOverlay(overlay);
  const deployment = find<IDeployment>(objects, "Deployment");
  const spec = podSpec(objects);
  const container = serviceContainer(objects);
  const config = find<IConfigMap>(objects, "ConfigMap").data ?? {};
  const podLabels = deployment.spec?.template.metadata?.labels;

  it.each(objects.map((object): [string, Manifest] => [`${object.kind}/${object.metadata.name}`, object]))(
    "%s is valid against the Kubernetes API schema",
    (_name, object) => {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `no model for ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new Model!(object as never).validate()).not.toThrow();
    },
  );

  it("holds no Secret and no secret value: secrets are referenced from the Secret the operator creates", () => {
    expect(objects.filter((object) => object.kind === "Secret")).toEqual([]);
    for (const name of SECRET_VARIABLES) expect(config[name], name).toBeUndefined();
    for (const variable of container.env ?? []) {
      if (SECRET_VARIABLES.includes(variable.name)) {
        expect(variable.value, variable.name).toBeUndefined();
        expect(variable.valueFrom?.secretKeyRef?.name, variable.name).toBe("sdwan-connections");
      }
    }
    const referenced = (container.env ?? [])
      .filter((variable) => variable.valueFrom?.secretKeyRef !== undefined)
      .map((variable) => variable.name);
    expect(referenced).toEqual(
      expect.arrayContaining(["SDWAN_MASTER_KEY", "SDWAN_ADMIN_USER", "SDWAN_ADMIN_PASSWORD"]),
    );
  });

  it("sets only variables of docs/interface.md's configuration table", () => {
    const documented = documentedVariables();
    expect(documented.size).toBeGreaterThan(20);
    const names = [...Object.keys(config), ...(container.env ?? []).map((variable) => variable.name)];
    expect(names.filter((name) => !documented.has(name))).toEqual([]);
  });

  it("runs the image of this release by its version tag, never `latest`", () => {
    expect(container.image).toBe(`sdwan-connections:${imageVersion()}`);
    expect(container.image).not.toMatch(/:latest$|^[^:]+$/);
  });

  it("listens on the pod's address, on the port that the probes, the Service, the NetworkPolicy and Prometheus use", () => {
    expect(config["SDWAN_HOST"]).toBe("0.0.0.0");
    const port = Number(config["SDWAN_PORT"]);
    expect(container.ports).toEqual([{ name: "http", containerPort: port, protocol: "TCP" }]);
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe])
      expect(probe?.httpGet?.port).toBe("http");
    expect(container.livenessProbe?.httpGet?.path).toBe("/healthz");
    expect(container.readinessProbe?.httpGet?.path).toBe("/readyz");
    expect(container.startupProbe?.httpGet?.path).toBe("/healthz");
    const service = find<IService>(objects, "Service");
    expect(service.spec?.ports?.map((p) => p.targetPort)).toEqual(["http"]);
    expect(labelsMatch(service.spec?.selector, podLabels)).toBe(true);
    const annotations = deployment.spec?.template.metadata?.annotations ?? {};
    expect([
      annotations["prometheus.io/scrape"],
      annotations["prometheus.io/port"],
      annotations["prometheus.io/path"],
    ]).toEqual(["true", String(port), "/metrics"]);
    const policy = find<INetworkPolicy>(objects, "NetworkPolicy");
    expect(policy.spec?.ingress?.flatMap((rule) => rule.ports ?? [])).toEqual([{ port, protocol: "TCP" }]);
    expect(labelsMatch(policy.spec?.podSelector?.matchLabels, podLabels)).toBe(true);
    expect(labelsMatch(deployment.spec?.selector.matchLabels, podLabels)).toBe(true);
  });

  it("meets PodSecurity `restricted`, as the image's own non-root user, with a read-only root filesystem", () => {
    expect([spec.hostNetwork, spec.hostPID, spec.hostIPC].filter(Boolean)).toEqual([]);
    expect(spec.securityContext?.runAsNonRoot).toBe(true);
    expect(spec.securityContext?.seccompProfile?.type).toBe("RuntimeDefault");
    expect(`${spec.securityContext?.runAsUser}:${spec.securityContext?.runAsGroup}`).toBe(imageUser());
    expect(spec.automountServiceAccountToken).toBe(false);
    const context = container.securityContext;
    expect(context?.allowPrivilegeEscalation).toBe(false);
    expect(context?.privileged ?? false).toBe(false);
    expect(context?.readOnlyRootFilesystem).toBe(true);
    expect(context?.runAsNonRoot).toBe(true);
    expect(context?.capabilities).toEqual({ drop: ["ALL"] });
    expect(context?.seccompProfile?.type).toBe("RuntimeDefault");
    expect((container.ports ?? []).filter((p) => p.hostPort !== undefined)).toEqual([]);
    expect(
      [spec.securityContext?.sysctls, context?.procMount, context?.capabilities?.add].filter(
        (value) => value !== undefined,
      ),
    ).toEqual([]);
    for (const volume of spec.volumes ?? []) {
      expect(
        Object.keys(volume).filter((key) => key !== "name" && !RESTRICTED_VOLUMES.includes(key)),
        volume.name,
      ).toEqual([]);
    }
  });

  it("has memory and CPU requests and limits, and a preStop pause that fits the grace period with the service's drain", () => {
    const { requests, limits } = container.resources ?? {};
    expect(bytesOf(requests?.["memory"] ?? "0")).toBeGreaterThan(0);
    expect(bytesOf(limits?.["memory"] ?? "0")).toBeGreaterThanOrEqual(bytesOf(requests?.["memory"] ?? "0"));
    expect(requests?.["cpu"]).toBeDefined();
    expect(limits?.["cpu"]).toBeDefined();
    const pause = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    // Longer than a readiness period, so endpoints drop the pod before SIGTERM; the service drains for at most 10 s after it.
    expect(pause).toBeGreaterThanOrEqual(container.readinessProbe?.periodSeconds ?? Infinity);
    expect(pause + 10).toBeLessThan(spec.terminationGracePeriodSeconds ?? 30);
  });

  it("resolves to a complete environment once the Secret exists", () => {
    const secrets = {
      "sdwan-connections/master-key": "k",
      "sdwan-connections/admin-user": "u",
      "sdwan-connections/admin-password": "p",
      "sdwan-connections/database-url": "d",
    };
    const environment = resolveEnvironment(objects, secrets);
    expect(environment["SDWAN_MASTER_KEY"]).toBe("k");
    expect(environment).not.toHaveProperty("SDWAN_MASTER_KEY_PREVIOUS");
    expect(() => resolveEnvironment(objects, {})).toThrow(/SDWAN_MASTER_KEY: its value is missing/);
  });
});

describe("the embedded topology", () => {
  const objects = renderOverlay("embedded");
  const deployment = find<IDeployment>(objects, "Deployment");
  const container = serviceContainer(objects);
  const config = find<IConfigMap>(objects, "ConfigMap").data ?? {};

  it("runs one pod, stopped before its replacement starts, on a PersistentVolumeClaim holding the data directory", () => {
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.strategy).toEqual({ type: "Recreate" });
    expect(config["SDWAN_STORAGE"]).toBe("lowdb");
    const [volume] = podSpec(objects).volumes ?? [];
    expect(volume?.persistentVolumeClaim?.claimName).toBe(
      find<Manifest>(objects, "PersistentVolumeClaim", "sdwan-connections-data").metadata.name,
    );
    const [mount, ...others] = container.volumeMounts ?? [];
    expect(others).toEqual([]);
    expect(mount?.name).toBe(volume?.name);
    // A directory inside the volume, which the service creates 0700 (the volume's root is group-writable under fsGroup).
    expect(config["SDWAN_DATA_DIR"]).toMatch(new RegExp(`^${mount?.mountPath}/[^/]+$`));
    expect(objects.map((object) => object.kind)).not.toContain("PodDisruptionBudget");
  });
});

describe("the postgres topology", () => {
  const objects = renderOverlay("postgres");
  const deployment = find<IDeployment>(objects, "Deployment");
  const container = serviceContainer(objects);
  const podLabels = deployment.spec?.template.metadata?.labels;

  it("runs two replicas on the database, rolled one at a time with no replica lost, and writes nowhere in the pod", () => {
    expect(deployment.spec?.replicas).toBe(2);
    expect(deployment.spec?.strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    expect(find<IConfigMap>(objects, "ConfigMap").data?.["SDWAN_STORAGE"]).toBe("postgres");
    expect(
      (container.env ?? []).find((variable) => variable.name === "SDWAN_DATABASE_URL")?.valueFrom?.secretKeyRef?.key,
    ).toBe("database-url");
    expect(podSpec(objects).volumes).toBeUndefined();
    expect(container.volumeMounts).toBeUndefined();
  });

  it("keeps one replica through voluntary disruptions", () => {
    const budget = find<IPodDisruptionBudget>(objects, "PodDisruptionBudget");
    expect(budget.spec?.minAvailable).toBe(1);
    expect(labelsMatch(budget.spec?.selector?.matchLabels, podLabels)).toBe(true);
  });

  it("lets out only DNS, the orchestrators' HTTPS, OpenNMS's REST and the database", () => {
    const policy = find<INetworkPolicy>(objects, "NetworkPolicy");
    expect(policy.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    const ports = (policy.spec?.egress ?? []).flatMap((rule) =>
      (rule.ports ?? []).map((p) => `${p.protocol}/${p.port}`),
    );
    expect(ports.sort()).toEqual(["TCP/443", "TCP/53", "TCP/5432", "TCP/8980", "UDP/53"]);
  });

  it("has an autoscaler example that scales this Deployment and never below the budget's need", () => {
    const [autoscaler] = readExample("hpa.yaml") as unknown as IHorizontalPodAutoscaler[];
    expect(autoscaler?.spec?.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment.metadata?.name,
    });
    expect(autoscaler?.spec?.minReplicas).toBe(deployment.spec?.replicas);
  });

  it("has an Ingress example that sends every path to the Service's port, on a port the NetworkPolicy admits", () => {
    const [ingress] = readExample("ingress.yaml") as unknown as IIngress[];
    const service = find<IService>(objects, "Service");
    const backends = (ingress?.spec?.rules ?? []).flatMap((rule) =>
      (rule.http?.paths ?? []).map((path) => [path.path, path.backend.service]),
    );
    expect(backends).toEqual([["/", { name: service.metadata?.name, port: { name: "http" } }]]);
    const port = service.spec?.ports?.find((p) => p.name === "http");
    expect(port).toBeDefined();
    const admitted = (find<INetworkPolicy>(objects, "NetworkPolicy").spec?.ingress ?? []).flatMap((rule) =>
      (rule.ports ?? []).map((p) => p.port),
    );
    expect(admitted).toContain(port?.port);
    expect(ingress?.spec?.tls?.[0]?.hosts).toEqual(ingress?.spec?.rules?.map((rule) => rule.host));
  });

  // SPEC §12, keys kept elsewhere: the Secret docs/deploy.md mounts at SDWAN_APIKEY_DIR is the one the operator fills.
  it("has an External Secrets Operator example filling the Secret docs/deploy.md mounts at SDWAN_APIKEY_DIR", () => {
    const [store, external] = readExample("external-secret.yaml") as unknown as [SecretStore, ExternalSecret];
    expect(external.spec?.secretStoreRef?.name).toBe(store.metadata?.name);
    expect(external.spec?.target?.name).toBe("sdwan-connections-apikeys");
    const deploy = readFileSync(join(REPO_ROOT, "docs/deploy.md"), "utf8");
    expect(deploy).toContain("secretName: sdwan-connections-apikeys");
    expect(deploy).toMatch(/SDWAN_APIKEY_DIR\n\s+value: \/var\/run\/sdwan\/apikeys/);
    expect(deploy).toContain("mountPath: /var/run/sdwan/apikeys");
  });

  it("has a ServiceMonitor example that selects the Service and scrapes its port's /metrics", () => {
    const [monitor] = readExample("servicemonitor.yaml");
    const service = find<IService>(objects, "Service");
    const monitorSpec = (monitor as unknown as ServiceMonitor).spec;
    expect(labelsMatch(monitorSpec.selector.matchLabels, service.metadata?.labels)).toBe(true);
    expect(monitorSpec.endpoints?.map((endpoint) => [endpoint.port, endpoint.path])).toEqual([["http", "/metrics"]]);
    expect(service.spec?.ports?.map((p) => p.name)).toContain("http");
  });
});

/** The egress rules of an overlay's NetworkPolicy, as `protocol/port` lists and destinations. */
const egressOf = (objects: Manifest[]) =>
  (find<INetworkPolicy>(objects, "NetworkPolicy").spec?.egress ?? []).map((rule) => ({
    ports: (rule.ports ?? []).map((p) => `${p.protocol}/${p.port}`),
    to: rule.to ?? [],
  }));

describe.each(OVERLAYS)("overlay %s's egress", (overlay) => {
  const [dns, orchestrators, opennms] = egressOf(renderOverlay(overlay));

  // Issue 38: a webhook to OpenNMS (its REST on port 8980, docs/opennms.md) was dropped silently: only 443, 53
  // and 5432 were let out.
  it("reaches OpenNMS's REST on its port 8980, on a pod of the cluster or an address outside it", () => {
    expect(opennms?.ports).toEqual(["TCP/8980"]);
    expect(opennms?.to).toEqual([
      { namespaceSelector: {} },
      { ipBlock: { cidr: "0.0.0.0/0" } },
      { ipBlock: { cidr: "::/0" } },
    ]);
  });

  it("reaches the orchestrators' HTTPS over IPv4 and IPv6", () => {
    expect(orchestrators?.ports).toEqual(["TCP/443"]);
    expect(orchestrators?.to.map((peer) => peer.ipBlock?.cidr)).toEqual(["0.0.0.0/0", "::/0"]);
  });

  it("reaches DNS on the cluster's DNS pods and on NodeLocal DNSCache's default address", () => {
    expect(dns?.ports).toEqual(["UDP/53", "TCP/53"]);
    expect(dns?.to).toEqual([
      { namespaceSelector: {}, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } },
      { ipBlock: { cidr: "169.254.20.10/32" } },
    ]);
  });
});

describe("a site's own overlay (examples/site-overlay): one patch for the orchestrators' ports, one for DNS", () => {
  const objects = render(join(PACKAGE_ROOT, "examples/site-overlay"));
  const postgres = renderOverlay("postgres");
  const [dns, orchestrators, ...others] = egressOf(objects);

  it("renders valid objects, the NetworkPolicy alone changed from the postgres overlay", () => {
    for (const object of objects)
      expect(() => new MODELS[`${object.apiVersion}/${object.kind}`]!(object as never).validate()).not.toThrow();
    const unchanged = (list: Manifest[]) => list.filter((object) => object.kind !== "NetworkPolicy");
    expect(unchanged(objects)).toEqual(unchanged(postgres));
  });

  it("adds the port to the orchestrators' rule and replaces the DNS destinations, keeping the rest", () => {
    expect(orchestrators?.ports).toEqual(["TCP/443", "TCP/8443"]);
    expect(orchestrators?.to).toEqual(egressOf(postgres)[1]?.to);
    expect(dns?.ports).toEqual(["UDP/53", "TCP/53"]);
    expect(dns?.to).toEqual([
      {
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
        podSelector: { matchLabels: { app: "coredns" } },
      },
      { ipBlock: { cidr: "169.254.25.10/32" } },
    ]);
    expect(others).toEqual(egressOf(postgres).slice(2));
  });
});

describe.each(EXAMPLES)("example %s", (name) => {
  it("is valid against its API schema (the ServiceMonitor against the Prometheus Operator's CRD model)", () => {
    for (const object of readExample(name)) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `no model for ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new Model!(object as never).validate()).not.toThrow();
    }
  });
});
