import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { documentedContract, resolvePointer, type Json } from './documented-contract.ts';
import { decidedRule, documentedRule, type IsRule } from './charged-rule.ts';
import { OperationTable, escapePointer, type OperationMatch } from './operation-table.ts';
import {
  responseFindings,
  type Finding,
  type Layer,
  type ResponseToValidate,
} from './response-findings.ts';
import { ruleById } from './rules.ts';
import { packagePath } from '../package-root.ts';

// ajv-formats is CommonJS; under NodeNext its default import is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The suite's own copy of the contract: it judges a deployment by this, not by what it serves. */
export const CONTRACT_PATH = packagePath('spec/openapi.yaml');

const SPEC_ID = 'mailtwin:openapi';
const DOCUMENTED_ID = 'mailtwin:openapi-documented';

/** Which layer of the contract a response broke (spec/openapi.yaml `x-contract-layers`). */
export type ContractLayer = 'documented' | 'decided';

/** How a response that breaks the contract is charged: one rule, and the layer it is in. */
export interface ContractCharge {
  /** The rule of conformance/rules.yaml the failure counts against. */
  ruleId: string;
  /**
   * `documented`: the response breaks what the service document requires (the rule fails).
   * `decided`: it breaks only parts spec/DECISIONS.md decided (the rule warns unless strict).
   */
  layer: ContractLayer;
}

/** Every way a response breaks the contract, and the one rule that is charged. */
export interface Judgement {
  /** Sentences naming the operation, status and problem, each ending in its layer and rule. */
  violations: string[];
  /** Absent when the response conforms. */
  charge?: ContractCharge;
}

/**
 * Validates every response the suite receives against spec/openapi.yaml with ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1). Returns human-readable violations; empty means valid.
 */
export class SpecValidator {
  readonly spec: Json;
  /** The documented contract derived from `spec` (documented-contract.ts). */
  readonly documented: Json;
  private readonly ajv: Ajv2020;
  private readonly full: Layer;
  private readonly layer: Layer;
  private readonly isRule: IsRule;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly operations: OperationTable;

  /**
   * `isRule` says whether an id is a rule of that source in conformance/rules.yaml (a charge
   * prefers one); tests may pass their own.
   */
  /** The target's own published document, when the run judges decided parts by it. */
  private readonly published: (SpecValidator & { origin: string }) | undefined;

  constructor(
    spec: Json = parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json,
    isRule: IsRule = (id, source) => ruleById(id)?.source === source,
    published?: { document: Json; origin: string },
  ) {
    this.spec = spec;
    this.documented = documentedContract(spec);
    this.isRule = isRule;
    this.full = { id: SPEC_ID, spec };
    this.layer = { id: DOCUMENTED_ID, spec: this.documented };
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(spec, SPEC_ID);
    this.ajv.addSchema(this.documented, DOCUMENTED_ID);
    this.operations = new OperationTable(spec);
    this.published =
      published === undefined
        ? undefined
        : Object.assign(new SpecValidator(published.document, isRule), {
            origin: published.origin,
          });
  }

  /** Every error code the contract lists for an operation (`x-error-codes` of its responses). */
  errorCodesOf(operationId: string): ReadonlySet<string> {
    return this.operations.errorCodesOf(operationId);
  }

  /** The operations of the contract as `METHOD /path` strings. */
  operationKeys(): string[] {
    return this.operations.keys();
  }

  /** Finds the documented operation for a method and a concrete path, if any. */
  match(method: string, path: string): OperationMatch | undefined {
    return this.operations.match(method, path);
  }

  /**
   * Every way the response breaks the whole contract (both layers), as sentences; `[]` when it
   * conforms.
   */
  validate(response: ResponseToValidate): string[] {
    return this.findings(this.full, response).map((f) => f.text);
  }

  /**
   * Validates the response against both layers and charges a failure to one rule. Breaking the
   * documented contract is charged to the nearest `x-documented` rule (a documented rule
   * fails); a response that passes it but breaks the whole contract broke only decided parts,
   * and is charged to the nearest `x-decided` row that conformance/rules.yaml asserts.
   */
  judge(response: ResponseToValidate, canonical: ResponseToValidate = response): Judgement {
    const documented = this.findings(this.layer, response);
    const decidedFindings = () =>
      this.published === undefined
        ? this.findings(this.full, canonical).map((f) => ({
            finding: f,
            rule: this.decidedRule(f),
          }))
        : this.publishedFindings(response);
    if (documented.length > 0) {
      const rules = documented.map((f) => this.documentedRule(f));
      const decidedOnly = decidedFindings().filter(
        ({ finding }) => !documented.some((d) => d.text === finding.text),
      );
      return {
        violations: [
          ...documented.map((f, i) => `${f.text} [documented: ${rules[i]}]`),
          ...decidedOnly.map(({ finding, rule }) => `${finding.text} [decided: ${rule}]`),
        ],
        charge: { ruleId: rules[0]!, layer: 'documented' },
      };
    }
    const decided = decidedFindings();
    if (decided.length === 0) return { violations: [] };
    return {
      violations: decided.map(({ finding, rule }) => `${finding.text} [decided: ${rule}]`),
      charge: { ruleId: decided[0]!.rule, layer: 'decided' },
    };
  }

  /**
   * A response judged by the target's own published document, its decided layer (issue 26):
   * each finding says so, and is charged to the D-row our contract gives that answer.
   */
  private publishedFindings(response: ResponseToValidate): { finding: Finding; rule: string }[] {
    const published = this.published!;
    const ours = this.match(response.method, response.path);
    const theirs = published.match(response.method, response.path);
    if (ours === undefined || theirs === undefined) return [];
    return published.findings(published.full, response).map((finding) => {
      const rule = this.decidedRule({ ...finding, kind: 'status', match: ours });
      return {
        finding: {
          ...finding,
          text: `${finding.text} (the target's own published contract, ${published.origin})`,
        },
        rule,
      };
    });
  }

  /** Every way a webhook delivery body breaks the contract's `webhooks.<event>` section. */
  validateWebhookBody(event: string, body: unknown): string[] {
    const pointer = `/webhooks/${escapePointer(event)}/post/requestBody/content/application~1json/schema`;
    if (resolvePointer(this.spec, pointer) === undefined)
      return [`the contract describes no webhook event "${event}"`];
    const validate = this.compile(this.full, pointer);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `webhook ${event} body${e.instancePath || ''} ${e.message ?? 'is invalid'}`,
    );
  }

  /** The documented rule a finding of the documented layer is charged to (charged-rule.ts). */
  private documentedRule(finding: Finding): string {
    return documentedRule(this.documented, finding, this.isRule);
  }

  /** The decided rule a finding of the whole contract is charged to (charged-rule.ts). */
  private decidedRule(finding: Finding): string {
    return decidedRule(this.spec, finding, this.isRule);
  }

  /** Every way the response breaks one layer (response-findings.ts). */
  private findings(layer: Layer, response: ResponseToValidate): Finding[] {
    const match = this.match(response.method, response.path);
    return responseFindings(layer, response, match, (l, pointer) => this.compile(l, pointer));
  }

  private compile(layer: Layer, pointer: string): ValidateFunction {
    const key = `${layer.id}#${pointer}`;
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: key });
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
