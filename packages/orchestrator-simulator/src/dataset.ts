import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";

/**
 * An orchestrator `enterprise` as the portal API sends it (Swagger definition
 * `enterprise`). The simulator serves these objects as they are stored, so a
 * data file may hold nulls, missing fields or odd values on purpose; only `id`
 * is required, to find the enterprise a customer key belongs to.
 */
export const EnterpriseRecord = t.intersection([t.type({ id: t.Int }), t.UnknownRecord], "EnterpriseRecord");
export type EnterpriseRecord = t.TypeOf<typeof EnterpriseRecord>;

/** A partner (an "enterprise proxy"), the keys that act as it, and its enterprises. */
export const PartnerRecord = t.type(
  {
    enterpriseProxyId: t.Int,
    name: t.string,
    keys: t.array(t.string),
    enterprises: t.array(EnterpriseRecord),
  },
  "PartnerRecord",
);
export type PartnerRecord = t.TypeOf<typeof PartnerRecord>;

/** A key that acts as one enterprise (a customer). */
export const CustomerKeyRecord = t.type({ key: t.string, enterpriseId: t.Int }, "CustomerKeyRecord");
export type CustomerKeyRecord = t.TypeOf<typeof CustomerKeyRecord>;

/**
 * The orchestrator's API token behind a key (a partner's or a customer's): the token lists (`getApiTokens`) of its
 * partner or enterprise show it. `readsTokens: false` is a key without the right to read those lists, `renews: false`
 * one without the right to renew itself (`ENTERPRISE_TOKEN` / `PROXY_TOKEN` beyond reading); the default has both.
 * `enterpriseUserId` is the user it was made for (`createdForEnterpriseUserId`; one is made up when absent).
 */
export const ApiTokenRecord = t.intersection(
  [
    t.type({ key: t.string, tokenUuid: t.string, expiration: t.string }),
    t.partial({ readsTokens: t.boolean, renews: t.boolean, enterpriseUserId: t.Int }),
  ],
  "ApiTokenRecord",
);
export type ApiTokenRecord = t.TypeOf<typeof ApiTokenRecord>;

/** What a simulator serves: the format of `fixtures/sample.json` and of `--data` files. */
export const Dataset = t.intersection(
  [
    t.type({ partners: t.array(PartnerRecord), customerKeys: t.array(CustomerKeyRecord) }),
    t.partial({ apiTokens: t.array(ApiTokenRecord) }),
  ],
  "Dataset",
);
export type Dataset = t.TypeOf<typeof Dataset>;

/** Decodes a parsed data file, naming the path of each bad field. */
export const decodeDataset = (input: unknown): E.Either<string, Dataset> =>
  pipe(
    Dataset.decode(input),
    E.mapLeft((errors) =>
      errors
        .slice(0, 5)
        .map(
          (error) =>
            `${
              error.context
                .map((entry) => entry.key)
                .filter((key) => key !== "")
                .join(".") || "(root)"
            } is invalid`,
        )
        .join("; "),
    ),
  );

export const BASTION_STATES = ["UNCONFIGURED", "STAGE_REQUESTED", "UNSTAGE_REQUESTED", "STAGED", "UNSTAGED"] as const;

// ---------------------------------------------------------------------------
// Deterministic generation: the shipped sample and the load-test datasets both
// come from here, so a given seed always yields byte-identical data.
// ---------------------------------------------------------------------------

/** mulberry32: a tiny seeded PRNG, good enough for test data. */
const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
};

interface Place {
  readonly city: string;
  readonly state: string;
  readonly zip: () => string;
  readonly country: string;
  readonly timezone: string;
  readonly locale: string;
  readonly lat: number;
  readonly lon: number;
  readonly streets: readonly string[];
}

const digits = (random: () => number, n: number): string =>
  Array.from({ length: n }, () => Math.floor(random() * 10)).join("");

const placesFor = (random: () => number): readonly Place[] => [
  {
    city: "Apex",
    state: "North Carolina",
    zip: () => `275${digits(random, 2)}`,
    country: "US",
    timezone: "America/New_York",
    locale: "en-US",
    lat: 35.7327,
    lon: -78.8503,
    streets: ["Salem St", "Olive Chapel Rd", "Hunter St"],
  },
  {
    city: "Austin",
    state: "Texas",
    zip: () => `787${digits(random, 2)}`,
    country: "US",
    timezone: "America/Chicago",
    locale: "en-US",
    lat: 30.2672,
    lon: -97.7431,
    streets: ["Congress Ave", "Lamar Blvd", "E 6th St"],
  },
  {
    city: "Denver",
    state: "Colorado",
    zip: () => `802${digits(random, 2)}`,
    country: "US",
    timezone: "America/Denver",
    locale: "en-US",
    lat: 39.7392,
    lon: -104.9903,
    streets: ["Larimer St", "Colfax Ave", "Blake St"],
  },
  {
    city: "Phoenix",
    state: "Arizona",
    zip: () => `850${digits(random, 2)}`,
    country: "US",
    timezone: "America/Phoenix",
    locale: "en-US",
    lat: 33.4484,
    lon: -112.074,
    streets: ["Central Ave", "Camelback Rd", "Van Buren St"],
  },
  {
    city: "San Jose",
    state: "California",
    zip: () => `951${digits(random, 2)}`,
    country: "US",
    timezone: "America/Los_Angeles",
    locale: "en-US",
    lat: 37.3382,
    lon: -121.8863,
    streets: ["N First St", "Santa Clara St", "Almaden Blvd"],
  },
  {
    city: "Seattle",
    state: "Washington",
    zip: () => `981${digits(random, 2)}`,
    country: "US",
    timezone: "America/Los_Angeles",
    locale: "en-US",
    lat: 47.6062,
    lon: -122.3321,
    streets: ["Pike St", "Westlake Ave", "Elliott Ave W"],
  },
  {
    city: "Anchorage",
    state: "Alaska",
    zip: () => `995${digits(random, 2)}`,
    country: "US",
    timezone: "America/Anchorage",
    locale: "en-US",
    lat: 61.2181,
    lon: -149.9003,
    streets: ["W 4th Ave", "C St"],
  },
  {
    city: "Honolulu",
    state: "Hawaii",
    zip: () => `968${digits(random, 2)}`,
    country: "US",
    timezone: "Pacific/Honolulu",
    locale: "en-US",
    lat: 21.3069,
    lon: -157.8583,
    streets: ["Kapiolani Blvd", "Bishop St"],
  },
  {
    city: "Toronto",
    state: "Ontario",
    zip: () => `M5V ${digits(random, 1)}A${digits(random, 1)}`,
    country: "CA",
    timezone: "America/Toronto",
    locale: "en-CA",
    lat: 43.6532,
    lon: -79.3832,
    streets: ["King St W", "Queen St E", "Bay St"],
  },
  {
    city: "Montréal",
    state: "Québec",
    zip: () => `H2X ${digits(random, 1)}B${digits(random, 1)}`,
    country: "CA",
    timezone: "America/Toronto",
    locale: "fr-CA",
    lat: 45.5019,
    lon: -73.5674,
    streets: ["Rue Sainte-Catherine O", "Boulevard Saint-Laurent"],
  },
  {
    city: "Vancouver",
    state: "British Columbia",
    zip: () => `V6B ${digits(random, 1)}C${digits(random, 1)}`,
    country: "CA",
    timezone: "America/Vancouver",
    locale: "en-CA",
    lat: 49.2827,
    lon: -123.1207,
    streets: ["Granville St", "Robson St"],
  },
  {
    city: "Ciudad de México",
    state: "CDMX",
    zip: () => `06${digits(random, 3)}`,
    country: "MX",
    timezone: "America/Mexico_City",
    locale: "es-MX",
    lat: 19.4326,
    lon: -99.1332,
    streets: ["Paseo de la Reforma", "Avenida Insurgentes Sur"],
  },
  {
    city: "São Paulo",
    state: "São Paulo",
    zip: () => `01${digits(random, 3)}-${digits(random, 3)}`,
    country: "BR",
    timezone: "America/Sao_Paulo",
    locale: "pt-BR",
    lat: -23.5505,
    lon: -46.6333,
    streets: ["Avenida Paulista", "Rua Augusta"],
  },
  {
    city: "London",
    state: "England",
    zip: () => `EC1A ${digits(random, 1)}BB`,
    country: "GB",
    timezone: "Europe/London",
    locale: "en-GB",
    lat: 51.5074,
    lon: -0.1278,
    streets: ["Old Street", "Farringdon Road", "Bishopsgate"],
  },
  {
    city: "Dublin",
    state: "Leinster",
    zip: () => `D02 X${digits(random, 3)}`,
    country: "IE",
    timezone: "Europe/Dublin",
    locale: "en-IE",
    lat: 53.3498,
    lon: -6.2603,
    streets: ["Grafton Street", "Baggot Street Lower"],
  },
  {
    city: "München",
    state: "Bayern",
    zip: () => `80${digits(random, 3)}`,
    country: "DE",
    timezone: "Europe/Berlin",
    locale: "de-DE",
    lat: 48.1351,
    lon: 11.582,
    streets: ["Leopoldstraße", "Sendlinger Straße"],
  },
  {
    city: "Paris",
    state: "Île-de-France",
    zip: () => `750${digits(random, 2)}`,
    country: "FR",
    timezone: "Europe/Paris",
    locale: "fr-FR",
    lat: 48.8566,
    lon: 2.3522,
    streets: ["Rue de Rivoli", "Boulevard Haussmann"],
  },
  {
    city: "Amsterdam",
    state: "Noord-Holland",
    zip: () => `10${digits(random, 2)} AB`,
    country: "NL",
    timezone: "Europe/Amsterdam",
    locale: "nl-NL",
    lat: 52.3676,
    lon: 4.9041,
    streets: ["Herengracht", "Damrak"],
  },
  {
    city: "Madrid",
    state: "Comunidad de Madrid",
    zip: () => `280${digits(random, 2)}`,
    country: "ES",
    timezone: "Europe/Madrid",
    locale: "es-ES",
    lat: 40.4168,
    lon: -3.7038,
    streets: ["Gran Vía", "Calle de Alcalá"],
  },
  {
    city: "Milano",
    state: "Lombardia",
    zip: () => `201${digits(random, 2)}`,
    country: "IT",
    timezone: "Europe/Rome",
    locale: "it-IT",
    lat: 45.4642,
    lon: 9.19,
    streets: ["Via Torino", "Corso Buenos Aires"],
  },
  {
    city: "Stockholm",
    state: "Stockholms län",
    zip: () => `111 ${digits(random, 2)}`,
    country: "SE",
    timezone: "Europe/Stockholm",
    locale: "sv-SE",
    lat: 59.3293,
    lon: 18.0686,
    streets: ["Drottninggatan", "Sveavägen"],
  },
  {
    city: "Johannesburg",
    state: "Gauteng",
    zip: () => `20${digits(random, 2)}`,
    country: "ZA",
    timezone: "Africa/Johannesburg",
    locale: "en-ZA",
    lat: -26.2041,
    lon: 28.0473,
    streets: ["Jan Smuts Ave", "Commissioner St"],
  },
  {
    city: "Bengaluru",
    state: "Karnataka",
    zip: () => `560${digits(random, 3)}`,
    country: "IN",
    timezone: "Asia/Kolkata",
    locale: "en-IN",
    lat: 12.9716,
    lon: 77.5946,
    streets: ["MG Road", "Residency Road"],
  },
  {
    city: "Singapore",
    state: "Singapore",
    zip: () => `0${digits(random, 5)}`,
    country: "SG",
    timezone: "Asia/Singapore",
    locale: "en-SG",
    lat: 1.3521,
    lon: 103.8198,
    streets: ["Robinson Road", "Orchard Road"],
  },
  {
    city: "Tokyo",
    state: "Tokyo",
    zip: () => `100-${digits(random, 4)}`,
    country: "JP",
    timezone: "Asia/Tokyo",
    locale: "ja-JP",
    lat: 35.6762,
    lon: 139.6503,
    streets: ["Marunouchi", "Nishi-Shinjuku"],
  },
  {
    city: "Sydney",
    state: "New South Wales",
    zip: () => `20${digits(random, 2)}`,
    country: "AU",
    timezone: "Australia/Sydney",
    locale: "en-AU",
    lat: -33.8688,
    lon: 151.2093,
    streets: ["George St", "Pitt St"],
  },
  {
    city: "Auckland",
    state: "Auckland",
    zip: () => `10${digits(random, 2)}`,
    country: "NZ",
    timezone: "Pacific/Auckland",
    locale: "en-NZ",
    lat: -36.8485,
    lon: 174.7633,
    streets: ["Queen Street", "Karangahape Road"],
  },
];

const NAME_PARTS = {
  first: [
    "Blue",
    "Granite",
    "Harbor",
    "Summit",
    "Cedar",
    "Northwind",
    "Silver",
    "Pioneer",
    "Keystone",
    "Lakeside",
    "Redwood",
    "Atlas",
    "Beacon",
    "Coastal",
    "Meridian",
  ],
  second: [
    "Logistics",
    "Health",
    "Dental",
    "Retail",
    "Foods",
    "Credit Union",
    "Manufacturing",
    "Hotels",
    "Pharmacy",
    "Law",
    "Energy",
    "Schools",
    "Motors",
    "Insurance",
    "Labs",
  ],
  suffix: ["Inc.", "LLC", "GmbH", "S.A.", "Ltd", "Pty Ltd", "K.K.", "B.V.", "AB", ""],
};
const PARTNER_NAMES = [
  "Carolina Managed Networks",
  "Alpine Telecom Services",
  "Pacific Rim Connect",
  "Nordic Edge MSP",
  "Southern Cross Comms",
];
const DESCRIPTIONS = [
  "Branch network",
  "Head office and 12 branches",
  "Retail stores (phase 2)",
  "Pilot",
  "Migrated from MPLS",
  "Warehouses",
];

const pick = <A>(random: () => number, items: readonly A[]): A => items[Math.floor(random() * items.length)] as A;

const uuid = (random: () => number): string => {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = "4";
  hex[16] = ((Math.floor(random() * 4) + 8) as number).toString(16);
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
};

/** An RFC 3339 date-time, as the Swagger's `format: date-time` asks. */
const isoDate = (random: () => number): string =>
  new Date(Date.UTC(2019, 0, 1) + Math.floor((random() * 5 * 365 * 86_400_000) / 1000) * 1000).toISOString();

/**
 * Sometimes left out, for the fields the orchestrator leaves empty in
 * practice. A complete record keeps every field.
 */
const sometimesMissing = <A>(random: () => number, rate: number, value: A, complete: boolean): A | undefined =>
  random() < rate && !complete ? undefined : value;

/**
 * The fields a real orchestrator sends as `null` when they were never filled
 * in (contact, address, location, description, account number, prefix),
 * though the Swagger marks no field nullable. The simulator's Swagger check
 * allows null in exactly these fields of an `enterprise`.
 */
export const NULLABLE_ENTERPRISE_FIELDS = [
  "prefix",
  "accountNumber",
  "description",
  "contactName",
  "contactPhone",
  "contactMobile",
  "contactEmail",
  "streetAddress",
  "streetAddress2",
  "city",
  "state",
  "postalCode",
  "country",
  "lat",
  "lon",
] as const;

/** The share of generated enterprises sent as real orchestrators send them (`GenerateOptions.nullShare`). */
export const DEFAULT_NULL_SHARE = 0.25;
/** In such an enterprise, the chance that each nullable field it has is null all the same. */
const NULLED_FIELD_RATE = 0.25;

/**
 * An enterprise as a real orchestrator sends it: each nullable field it left
 * out is there as `null`, and each it has is null now and then (a record
 * emptied later). Other fields stay absent when absent.
 */
const withNulls = (random: () => number, enterprise: Record<string, unknown>): Record<string, unknown> => {
  const sent = { ...enterprise };
  for (const field of NULLABLE_ENTERPRISE_FIELDS)
    if (!(field in sent) || random() < NULLED_FIELD_RATE) sent[field] = null;
  return sent;
};

/**
 * The expiry of every generated token. Longer than the 12 months an orchestrator gives, on purpose: the simulator
 * refuses an expired token's key, and fixed data must not stop working on a date (it said 2027-06-11 before).
 */
export const GENERATED_TOKEN_EXPIRATION = "2036-06-11T00:00:00.000Z";

export interface GenerateOptions {
  readonly partners: number;
  readonly enterprisesPerPartner: number | readonly number[];
  /** Defaults to 1; the same seed always yields the same data. */
  readonly seed?: number;
  /** Prefix of generated keys; defaults to "generated". */
  readonly keyPrefix?: string;
  /** How many customer keys to create per partner (for its first enterprises); defaults to 2. */
  readonly customerKeysPerPartner?: number;
  /**
   * The share of enterprises (0 to 1) with nulls in `NULLABLE_ENTERPRISE_FIELDS`, as real orchestrators
   * send them; defaults to `DEFAULT_NULL_SHARE`. 0 gives the old form: no null anywhere, the same data otherwise.
   */
  readonly nullShare?: number;
}

/**
 * Generates partners with realistic enterprises: matching city, region,
 * postal code, country, IANA time zone and locale; coordinates with many
 * decimals; some fields left out; every bastion state; tinyint 0/1 flags;
 * in a share of the enterprises, nulls where real orchestrators send them.
 * Every answer it makes validates against the vendor Swagger, but for those nulls.
 */
export const generateDataset = (options: GenerateOptions): Dataset => {
  const random = seededRandom(options.seed ?? 1);
  // A stream of its own, so that the share of nulls changes nothing else in the data.
  const nullRandom = seededRandom((options.seed ?? 1) ^ 0x6e756c6c);
  const nullShare = options.nullShare ?? DEFAULT_NULL_SHARE;
  const places = placesFor(random);
  const keyPrefix = options.keyPrefix ?? "generated";
  const partners: PartnerRecord[] = [];
  const customerKeys: CustomerKeyRecord[] = [];
  let nextEnterpriseId = 1000;
  const customerKeysPerPartner = options.customerKeysPerPartner ?? 2;
  // A token per key, made without the seeded stream (the rest of the data stays as it was): uuids counted up, one fixed expiry.
  const apiTokens: ApiTokenRecord[] = [];
  const addToken = (key: string, readsTokens: boolean) =>
    apiTokens.push({
      key,
      tokenUuid: `00000000-0000-4000-8000-${String(apiTokens.length + 1).padStart(12, "0")}`,
      expiration: GENERATED_TOKEN_EXPIRATION,
      ...(readsTokens ? {} : { readsTokens }),
    });

  for (let p = 0; p < options.partners; p += 1) {
    const size =
      typeof options.enterprisesPerPartner === "number"
        ? options.enterprisesPerPartner
        : (options.enterprisesPerPartner[p] ?? 0);
    const enterpriseProxyId = 10 + p;
    const enterprises: EnterpriseRecord[] = [];
    for (let e = 0; e < size; e += 1) {
      const id = nextEnterpriseId++ as t.Int;
      const place = pick(random, places);
      const name =
        `${pick(random, NAME_PARTS.first)} ${pick(random, NAME_PARTS.second)} ${pick(random, NAME_PARTS.suffix)}`.trim();
      const domain = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "")}${id}`;
      const jitter = () => (random() - 0.5) * 0.2;
      // getEnterprise answers every field (the Swagger requires them), so the enterprises behind customer keys are complete.
      const complete = e < customerKeysPerPartner;
      const maybe = <A>(rate: number, value: A) => sometimesMissing(random, rate, value, complete);
      const enterprise: Record<string, unknown> = {
        id,
        created: isoDate(random),
        networkId: maybe(0.02, 1),
        gatewayPoolId: maybe(0.03, 1 + Math.floor(random() * 4)),
        alertsEnabled: maybe(0.03, random() < 0.8 ? 1 : 0),
        operatorAlertsEnabled: maybe(0.03, random() < 0.6 ? 1 : 0),
        endpointPkiMode: pick(random, ["CERTIFICATE_DISABLED", "CERTIFICATE_OPTIONAL", "CERTIFICATE_REQUIRED"]),
        name,
        domain,
        prefix: complete ? "" : undefined,
        logicalId: uuid(random),
        accountNumber: maybe(0.15, `${place.country}-${digits(random, 6)}`),
        description: random() < 0.4 ? (complete ? "" : undefined) : random() < 0.3 ? "" : pick(random, DESCRIPTIONS),
        contactName: maybe(0.3, "Network Operations"),
        contactPhone: maybe(0.4, `+1 555 ${digits(random, 3)} ${digits(random, 4)}`),
        contactMobile: complete ? "" : undefined,
        contactEmail: maybe(0.3, `noc@${domain}.example`),
        streetAddress: maybe(0.05, `${1 + Math.floor(random() * 2500)} ${pick(random, place.streets)}`),
        streetAddress2: maybe(0.8, `Suite ${100 + Math.floor(random() * 900)}`),
        city: maybe(0.03, place.city),
        state: maybe(0.05, place.state),
        postalCode: maybe(0.05, place.zip()),
        country: maybe(0.02, place.country),
        // Many decimals on purpose: the client must round to 6.
        lat: maybe(0.05, place.lat + jitter()),
        lon: maybe(0.05, place.lon + jitter()),
        timezone: maybe(0.03, place.timezone),
        locale: maybe(0.03, place.locale),
        modified: isoDate(random),
        // The first five of each partner cover every state; the rest are mostly configured.
        bastionState:
          e < BASTION_STATES.length
            ? BASTION_STATES[e]
            : random() < 0.7
              ? "UNCONFIGURED"
              : pick(random, BASTION_STATES),
      };
      for (const [field, value] of Object.entries(enterprise)) if (value === undefined) delete enterprise[field];
      enterprises.push({ ...(nullRandom() < nullShare ? withNulls(nullRandom, enterprise) : enterprise), id });
    }
    partners.push({
      enterpriseProxyId: enterpriseProxyId as t.Int,
      name: PARTNER_NAMES[p % PARTNER_NAMES.length] ?? `Partner ${p + 1}`,
      keys: [`${keyPrefix}-partner-key-${p + 1}`],
      enterprises,
    });
    addToken(`${keyPrefix}-partner-key-${p + 1}`, true);
    enterprises.slice(0, customerKeysPerPartner).forEach((enterprise, i) => {
      customerKeys.push({ key: `${keyPrefix}-customer-key-${p + 1}-${i + 1}`, enterpriseId: enterprise.id });
      // The first customer key of a partner may read its enterprise's tokens; the others may not.
      addToken(`${keyPrefix}-customer-key-${p + 1}-${i + 1}`, i === 0);
    });
  }
  return { partners, customerKeys, apiTokens };
};
