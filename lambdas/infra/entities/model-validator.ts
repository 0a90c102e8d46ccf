/**
 * What `jsonschema` resolves to inside a Lambda bundle (lib/bundling.ts `alias`). ElectroDB uses
 * that package for one thing: checking an entity's model, the constant declaration of its
 * attributes and indexes, when the entity is built (electrodb/src/validations.js `validateModel`).
 * The models are the same in every process, so the check is made where the sources run (tests, the
 * twin, with the real package, which rejects a bad model there) and a deployed function does not
 * repeat it at each cold start: 28 KB less in every bundle with an entity, and the models' check off
 * the first request. Only the surface ElectroDB reads: custom formats on the prototype, schemas
 * added, and `validate` answering no errors.
 */
export class Validator {
  customFormats!: Record<string, (input: unknown) => boolean>;

  addSchema(): void {}

  validate(): { errors: never[] } {
    return { errors: [] };
  }
}
Validator.prototype.customFormats = {};
