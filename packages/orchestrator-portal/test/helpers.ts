import { ApiKey, type OrchestratorTarget, type OrchestratorUrl } from "@sdwan-connections/core";

export const targetFor = (orchestratorUrl: string, apiKey: string): OrchestratorTarget => ({
  orchestratorUrl: orchestratorUrl as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(apiKey),
});

/** Every sample key, so tests can assert none of them leaks anywhere. */
export const SAMPLE_PARTNER_KEY = "sample-partner-key-1";
export const SAMPLE_CUSTOMER_KEY = "sample-customer-key-1-1";
