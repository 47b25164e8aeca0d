/** Every built-in detector, in the order they run (the order does not change the result). */
import type { Detector } from '../detector.js';
import { assignmentDetector } from './assignments/detector.js';
import { authorizationHeaderDetector } from './authorization-headers.js';
import { alphanumericIdDetector, ibanDetector, ipv6Detector } from './bank-and-ids.js';
import { cliUserCredentialDetector } from './cli-user-credentials.js';
import { emailDetector } from './email.js';
import { nationalIdDetector } from './national-ids.js';
import { numberDetector } from './numbers.js';
import { passwordContextDetector } from './password-contexts.js';
import { providerTokenDetector, shapedTokenDetector } from './provider-tokens.js';
import { hexPrivateKeyDetector, jwtDetector, passwordHashDetector, privateKeyDetector } from './structured-secrets.js';
import { tabularDetector } from './tabular.js';
import { toolCredentialDetector } from './tool-credentials.js';
import { urlDetector } from './urls.js';

/**
 * Detectors with pattern triggers are listed most specific first: the prefilter's alternation
 * takes their patterns in this order (see prefilter.ts). A tuple, so that DeclaredRuleId below
 * knows each detector's own ids.
 */
const DETECTORS = [
  shapedTokenDetector,
  alphanumericIdDetector,
  ibanDetector,
  ipv6Detector,
  nationalIdDetector,
  tabularDetector,
  numberDetector,
  privateKeyDetector,
  providerTokenDetector,
  jwtDetector,
  passwordHashDetector,
  hexPrivateKeyDetector,
  urlDetector,
  emailDetector,
  authorizationHeaderDetector,
  cliUserCredentialDetector,
  toolCredentialDetector,
  passwordContextDetector,
  assignmentDetector,
] as const;

export const BUILT_IN_DETECTORS: readonly Detector[] = DETECTORS;

/** Each built-in detector's own type, with the ids it declares (for the type tests). */
export type BuiltInDetectorTypes = typeof DETECTORS;

/**
 * Every rule id some built-in detector declares. The rule catalog holds exactly these ids
 * (test/core/sanitiser/rule-ids.test.ts): a catalog rule no detector declares is never found.
 */
export type DeclaredRuleId = BuiltInDetectorTypes[number]['ruleIds'][number];
