/** Where the operators' pages are served (also exempted from the API's no-content security policy). */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';
export const CONNECTORS_PAGE_PATH = '/admin/connectors';
