/**
 * The review resources, answered from the fake's authenticator and RBAC authorizer as kube-apiserver answers them:
 * SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview, SelfSubjectRulesReview (authorization.k8s.io)
 * and TokenReview, SelfSubjectReview (authentication.k8s.io). A SubjectAccessReview RBAC allows can still be denied by
 * the test hook `faults.denySubjectAccess`. As kube, a TokenReview is answered with the metadata sent and the writer's
 * managedFields entry, a SelfSubjectReview with only a creationTimestamp, a SelfSubjectRulesReview with neither
 * metadata nor spec.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { ADMIN_USER } from "./authn.ts";
import type { FaultHooks } from "./faults.ts";
import type { PolicyRule } from "./rbac_bootstrap.ts";
import type { RbacAuthorizer, RequestAttributes, UserInfo } from "./rbac_authorizer.ts";
import type { ResourceRoute } from "./http_route.ts";
import type { ServiceAccountTokens } from "./service_account_tokens.ts";
import { rfc3339 } from "./object_rules.ts";
import { badRequest, invalid } from "./status_errors.ts";

/** What the review handlers need. */
export interface ReviewContext {
  /** The requester (after impersonation). */
  user: UserInfo;
  authorizer: Pick<RbacAuthorizer, "authorize" | "rulesFor">;
  tokens: ServiceAccountTokens;
  /** The admin bearer token, when configured. */
  adminToken?: string;
  faults: FaultHooks;
  /** The server's time (a SelfSubjectReview's creationTimestamp). */
  nowMs: number;
  /** The writer's managedFields entries for a review kube answers as sent (a TokenReview). */
  managedFields(review: KubeObject): unknown[];
}

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

/**
 * kube-apiserver names review kinds from the decoded object, whose kind is already cleared: its 422s read
 * `.authorization.k8s.io "" is invalid: ...`.
 */
const NO_KIND = { group: "authorization.k8s.io", kind: "", plural: "" };

function exactlyOne(spec: KubeObject["spec"]): void {
  const both = Boolean(spec?.resourceAttributes) === Boolean(spec?.nonResourceAttributes);
  if (!both) return;
  throw invalid(NO_KIND, "", [{
    reason: "FieldValueInvalid",
    field: "spec",
    message: `Invalid value: ${
      spec?.nonResourceAttributes ? "{}" : "null"
    }: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
  }]);
}

function attributesOf(user: UserInfo, spec: KubeObject["spec"]): RequestAttributes {
  if (spec?.nonResourceAttributes) {
    const n = spec.nonResourceAttributes as { path?: string; verb?: string };
    return { user, verb: n.verb ?? "", resourceRequest: false, path: n.path ?? "" };
  }
  const r = (spec?.resourceAttributes ?? {}) as ResourceAttributes;
  return {
    user,
    verb: r.verb ?? "",
    resourceRequest: true,
    apiGroup: r.group ?? "",
    apiVersion: r.version ?? "",
    resource: r.resource ?? "",
    subresource: r.subresource ?? "",
    namespace: r.namespace ?? "",
    name: r.name ?? "",
  };
}

function accessStatus(ctx: ReviewContext, attrs: RequestAttributes, review: KubeObject, hook: boolean) {
  const decision = ctx.authorizer.authorize(attrs);
  if (hook && decision.allowed && !ctx.faults.allows(review)) {
    return { allowed: false, denied: true, reason: "denied by test hook" };
  }
  return { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
}

function specUser(spec: KubeObject["spec"]): UserInfo {
  return {
    username: spec?.user ?? "",
    uid: spec?.uid,
    groups: Array.isArray(spec?.groups) ? spec.groups : [],
    extra: spec?.extra,
  };
}

function rulesReviewStatus(ctx: ReviewContext, namespace: string) {
  const { rules, errors } = ctx.authorizer.rulesFor(ctx.user, namespace);
  const all: PolicyRule[] = rules;
  const resourceRules = all.filter((r) => (r.resources ?? []).length > 0).map((r) => ({
    verbs: r.verbs,
    ...(r.apiGroups ? { apiGroups: r.apiGroups } : {}),
    resources: r.resources,
    ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
  }));
  const nonResourceRules = all.filter((r) => (r.nonResourceURLs ?? []).length > 0).map((r) => ({
    verbs: r.verbs,
    nonResourceURLs: r.nonResourceURLs,
  }));
  return {
    resourceRules,
    nonResourceRules,
    incomplete: false,
    ...(errors.length ? { evaluationError: errors.length === 1 ? errors[0] : `[${errors.join(", ")}]` } : {}),
  };
}

/** Answers a create of a review resource with its computed status (201). */
export function answerReview(body: KubeObject, route: ResourceRoute, ctx: ReviewContext): KubeObject {
  const out: KubeObject = { ...body, apiVersion: `${route.def.group}/${route.def.version}`, kind: route.def.kind };
  out.metadata = { ...(body.metadata ?? {}), creationTimestamp: null as unknown as undefined };
  const spec = body.spec ?? {};
  switch (route.def.plural) {
    case "tokenreviews": {
      const token = spec.token;
      if (typeof token !== "string" || token === "") {
        throw badRequest("token is required for TokenReview in authentication", "create");
      }
      // kube answers the review as sent (recorded by the field manager, never stored: no creationTimestamp).
      out.metadata = { ...(body.metadata ?? {}) };
      delete out.metadata.creationTimestamp;
      const entries = ctx.managedFields(out);
      if (entries.length) out.metadata.managedFields = entries as typeof out.metadata.managedFields;
      const asked: string[] = Array.isArray(spec.audiences) ? spec.audiences : [];
      if (ctx.adminToken !== undefined && token === ctx.adminToken) {
        out.status = { authenticated: true, user: { ...ADMIN_USER }, audiences: asked };
        break;
      }
      const id = ctx.tokens.review(token);
      const audiences = id && (asked.length === 0 ? id.audiences : asked.filter((a) => id.audiences.includes(a)));
      if (id && audiences && audiences.length > 0) {
        out.status = { authenticated: true, user: id.user, audiences };
      } else {
        out.status = {
          user: {},
          error: id
            ? `token audiences ${JSON.stringify(id.audiences)} is invalid for the target audiences`
            : "invalid bearer token",
        };
      }
      break;
    }
    case "selfsubjectreviews":
      // kube answers a new review: created now, the request's metadata not kept.
      out.metadata = { creationTimestamp: rfc3339(ctx.nowMs) };
      out.status = {
        userInfo: {
          username: ctx.user.username,
          ...(ctx.user.uid ? { uid: ctx.user.uid } : {}),
          groups: ctx.user.groups,
          ...(ctx.user.extra ? { extra: ctx.user.extra } : {}),
        },
      };
      break;
    case "subjectaccessreviews": {
      exactlyOne(spec);
      if (!spec.user && !(Array.isArray(spec.groups) && spec.groups.length)) {
        throw invalid(NO_KIND, "", [{
          reason: "FieldValueInvalid",
          field: "spec.user",
          message: 'Invalid value: "": at least one of user or group must be specified',
        }]);
      }
      out.status = accessStatus(ctx, attributesOf(specUser(spec), spec), body, true);
      break;
    }
    case "localsubjectaccessreviews": {
      exactlyOne(spec);
      const ns = route.namespace ?? "";
      const metaNs = body.metadata?.namespace || ns;
      const attrNs = spec.resourceAttributes?.namespace ?? "";
      if (spec.nonResourceAttributes || attrNs !== metaNs) {
        throw invalid(NO_KIND, "", [
          spec.nonResourceAttributes
            ? {
              reason: "FieldValueInvalid",
              field: "spec.nonResourceAttributes",
              message: "Invalid value: {}: disallowed on this kind of request",
            }
            : {
              reason: "FieldValueInvalid",
              field: "spec.resourceAttributes.namespace",
              message: `Invalid value: "${attrNs}": must match metadata.namespace`,
            },
        ]);
      }
      if (metaNs !== ns) {
        throw badRequest(
          `the namespace of the provided object does not match the namespace sent on the request`,
          "create",
        );
      }
      out.metadata.namespace = ns;
      out.status = accessStatus(ctx, attributesOf(specUser(spec), spec), body, true);
      break;
    }
    case "selfsubjectaccessreviews":
      exactlyOne(spec);
      out.status = accessStatus(ctx, attributesOf(ctx.user, spec), body, false);
      break;
    case "selfsubjectrulesreviews":
      if (!spec.namespace) throw badRequest("no namespace on request", "create");
      // kube answers a new review holding only the status.
      return {
        apiVersion: out.apiVersion,
        kind: out.kind,
        metadata: {},
        spec: {},
        status: rulesReviewStatus(ctx, spec.namespace),
      };
  }
  return out;
}
