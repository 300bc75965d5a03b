// Who may do what in a store (docs/team.md#roles), as data: the services enforce it, the
// dashboard shows only what it allows, and the tests walk every role × permission.

export const ROLES = ["owner", "developer", "support", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** The role a member gets when none is said: the CLI invites owners. */
export const DEFAULT_INVITE_ROLE: Role = "owner";

/**
 * Each permission and the roles that have it, one row of the table in docs/team.md#roles each (the
 * first row, seeing, is every role's).
 */
export const PERMISSIONS = {
  /** See orders, events, deliveries, bank mutations, the audit log, and endpoints without their secrets. */
  view: ["owner", "developer", "support", "viewer"],
  /** API keys; webhook endpoints: add, change, rotate, reveal, test, resend, replay. */
  developer_settings: ["owner", "developer"],
  /** Mark paid, cancel, refund; import, assign and dismiss bank mutations. */
  payments: ["owner", "support"],
  /** Settings (bank account, redirects) and the team (invite, change role, remove). */
  store_admin: ["owner"],
  /** Products, bundles, prices and stock. */
  catalog: ["owner", "developer"],
  /** Payment links: make and deactivate them. */
  payment_links: ["owner", "developer", "support"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** What each permission lets a person do, for the page that says what their role may not. */
export const PERMISSION_TEXT: Record<Permission, string> = {
  view: "see orders, products, events, deliveries, bank mutations and the audit log",
  developer_settings: "manage API keys and webhook endpoints",
  payments: "mark orders paid, cancel or refund them, and import, assign or dismiss bank mutations",
  store_admin: "change the store's settings and its team",
  catalog: "change products, bundles, prices and stock",
  payment_links: "make or deactivate payment links",
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether a member with `role` has `permission`. */
export function roleMay(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/** Every permission of a role, in the table's order. */
export function permissionsOf(role: Role): Permission[] {
  return PERMISSION_NAMES.filter((permission) => roleMay(role, permission));
}

/** Why a store's last owner may not go or step down (the catalog's refusal and the Team page say it alike). */
export const LAST_OWNER_TEXT = "a store must keep at least one owner: make another member owner first";

/**
 * Whether `memberId` is the store's only owner among `members` (its whole team), so
 * removing them or changing their role would leave the store without one. The catalog
 * decides with the same count under its lock; a page uses this to say so before asking.
 */
export function isLastOwner(members: readonly { id: string; role: string }[], memberId: string): boolean {
  const owners = members.filter((member) => member.role === "owner");
  return owners.length === 1 && owners[0]!.id === memberId;
}
