/**
 * Which version of a resource runs (DECISIONS, "Catalog lifecycle"): the one the request names by
 * `version` or `label`; without either, the version labelled `production` if there is one, else
 * the newest (`latest`, implicit). An unknown version or label is a VALIDATION_ERROR that names
 * the ones there are.
 */
import type { Labelled, LabelRecord } from '../../db/store.js';
import { PorchError } from '../errors.js';

export const LATEST_LABEL = 'latest';
export const PRODUCTION_LABEL = 'production';

/** Label names: short lowercase identifiers (`production`, `staging`, `canary-eu`). */
export const LABEL_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export interface VersionSelector {
  version?: number | undefined;
  label?: string | undefined;
}

/** What a resource is, for messages: "Composition 0190...". */
export interface ResourceName {
  noun: string;
  id: string;
}

/** The versions a resource has, for a message naming one it has not: `its versions are 1 to 3`, `its only version is 1`. */
export function describeVersions(latest: number): string {
  return latest === 1 ? 'its only version is 1' : `its versions are 1 to ${latest}`;
}

/** Version numbers, oldest first, with runs joined: [1, 2, 3, 5] is "1 to 3, 5". */
function versionRanges(versions: readonly number[]): string {
  const ranges: string[] = [];
  const sorted = [...versions].sort((a, b) => a - b);
  for (let start = 0; start < sorted.length; ) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1] === (sorted[end] ?? 0) + 1) end++;
    ranges.push(end === start ? `${sorted[start]}` : `${sorted[start]} to ${sorted[end]}`);
    start = end + 1;
  }
  return ranges.join(', ');
}

/**
 * The versions a persona has, for a message naming one it has not: those written while its card
 * was a persona (`its versions as a persona are 2 to 4`).
 */
export function describePersonaVersions(versions: readonly number[]): string {
  if (versions.length === 0) return 'it has no version as a persona';
  return versions.length === 1 ? `its only version as a persona is ${versions[0]}` : `its versions as a persona are ${versionRanges(versions)}`;
}

function describeLabels(labels: readonly LabelRecord[], latest: number): string {
  return [`${LATEST_LABEL} (version ${latest})`, ...labels.map((label) => `${label.label} (version ${label.version})`)].join(', ');
}

/**
 * The version number `selector` names on `resource`. `labels` is read only when a label other
 * than `latest` and `production` is asked for (the resource row already carries those two);
 * `heldVersions` says which versions there are when a number out of range was asked for (a
 * persona has fewer than its card: describePersonaVersions).
 */
export async function selectVersion(
  resource: Pick<Labelled<{ version: number }>, 'version' | 'productionVersion'>,
  selector: VersionSelector,
  name: ResourceName,
  labels: () => Promise<LabelRecord[]>,
  heldVersions: () => Promise<string> = async () => describeVersions(resource.version),
): Promise<number> {
  const { version, label } = selector;
  if (version !== undefined && label !== undefined) {
    throw new PorchError('VALIDATION_ERROR', 'Send either version or label, not both.');
  }
  if (version !== undefined) {
    if (version >= 1 && version <= resource.version) return version;
    throw new PorchError('VALIDATION_ERROR', `version: ${name.noun} ${name.id} has no version ${version}; ${await heldVersions()}.`);
  }
  if (label === undefined) return resource.productionVersion ?? resource.version;
  if (label === LATEST_LABEL) return resource.version;
  if (label === PRODUCTION_LABEL && resource.productionVersion !== null) return resource.productionVersion;
  const all = await labels();
  const found = all.find((candidate) => candidate.label === label);
  if (found) return found.version;
  throw new PorchError('VALIDATION_ERROR', `label: ${name.noun} ${name.id} has no label "${label}"; its labels are ${describeLabels(all, resource.version)}.`);
}

/** A label a caller may set or remove: every well-formed name but the implicit `latest`. */
export function checkSettableLabel(label: string): void {
  if (label === LATEST_LABEL) {
    throw new PorchError('VALIDATION_ERROR', `label: "${LATEST_LABEL}" always names the newest version and cannot be set or removed.`);
  }
  if (!LABEL_PATTERN.test(label)) {
    throw new PorchError('VALIDATION_ERROR', 'label: must be 1-32 lowercase letters, digits, _ or -, starting with a letter.');
  }
}

/** The labels a request may name on a resource, with the version each names: `latest` first, then the set ones by name. */
export function selectableLabels(latest: number, labels: readonly LabelRecord[]): Array<{ label: string; version: number }> {
  return [{ label: LATEST_LABEL, version: latest }, ...labels.map(({ label, version }) => ({ label, version }))];
}

/** The version a request without `version` or `label` runs: `production` if set, else the newest. */
export function defaultVersion(latest: number, labels: readonly Pick<LabelRecord, 'label' | 'version'>[]): number {
  return labels.find((candidate) => candidate.label === PRODUCTION_LABEL)?.version ?? latest;
}

/**
 * Refuses an update made from an older version than the newest (`expected_version`): the caller
 * read version `expected`, someone wrote since, and writing now would undo their change unseen.
 * Without `expected` an update applies to whatever is newest, as before.
 */
export function checkExpectedVersion(name: ResourceName, newest: number, expected: number | undefined): void {
  if (expected === undefined || expected === newest) return;
  throw new PorchError(
    'CONFLICT',
    expected < newest
      ? `${name.noun} ${name.id} is at version ${newest}, not ${expected} (expected_version): it was changed since you read it. Read it again and apply your change to version ${newest}.`
      : `${name.noun} ${name.id} is at version ${newest}; version ${expected} (expected_version) does not exist yet.`,
    { hint: `Read it again (GET), apply your change to what it holds now, and send expected_version ${newest}.` },
  );
}
