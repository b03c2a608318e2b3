import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Several SMSC links: the connectors, the prefix routes onto them (global when account_id is 0),
 * per-destination prices, the live state each worker reports for its binds, the connector each
 * message went out on, and the priority of a send (with a key's default).
 */
export class CreateConnectorsRoutesPrices1764023000000 implements MigrationInterface {
  name = 'CreateConnectorsRoutesPrices1764023000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE connectors (
      id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      name VARCHAR(64) NOT NULL,
      url VARCHAR(512) NOT NULL,
      tps INT UNSIGNED NOT NULL DEFAULT 0,
      window_size SMALLINT UNSIGNED NOT NULL DEFAULT 100,
      bind_mode ENUM('transceiver','transmitter') NOT NULL DEFAULT 'transceiver',
      system_type VARCHAR(13) NULL,
      enabled TINYINT(1) NOT NULL DEFAULT 1,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_connectors_name (name)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await q.query(`CREATE TABLE routes (
      id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      account_id BIGINT UNSIGNED NOT NULL DEFAULT 0,
      prefix VARCHAR(16) NOT NULL,
      connector_id INT UNSIGNED NOT NULL,
      priority SMALLINT UNSIGNED NOT NULL DEFAULT 1,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_routes (account_id, prefix, connector_id),
      CONSTRAINT fk_routes_connector FOREIGN KEY (connector_id) REFERENCES connectors (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await q.query(`CREATE TABLE destination_prices (
      account_id BIGINT UNSIGNED NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      prefix VARCHAR(16) NOT NULL,
      cost_per_unit DECIMAL(20,6) NOT NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      PRIMARY KEY (account_id, channel, prefix)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await q.query(`CREATE TABLE connector_state (
      worker VARCHAR(100) NOT NULL,
      connector VARCHAR(64) NOT NULL,
      bound TINYINT(1) NOT NULL,
      in_flight INT UNSIGNED NOT NULL,
      queued INT UNSIGNED NOT NULL,
      sent_per_second DECIMAL(10,1) NOT NULL,
      updated_at DATETIME(3) NOT NULL,
      PRIMARY KEY (worker, connector)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await q.query('ALTER TABLE messages ADD COLUMN connector VARCHAR(64) NULL AFTER provider_message_id');
    await q.query(
      "ALTER TABLE send_requests ADD COLUMN priority ENUM('high','normal') NOT NULL DEFAULT 'normal'",
    );
    await q.query("ALTER TABLE api_keys ADD COLUMN priority ENUM('high','normal') NULL");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys DROP COLUMN priority');
    await q.query('ALTER TABLE send_requests DROP COLUMN priority');
    await q.query('ALTER TABLE messages DROP COLUMN connector');
    await q.query('DROP TABLE connector_state');
    await q.query('DROP TABLE destination_prices');
    await q.query('DROP TABLE routes');
    await q.query('DROP TABLE connectors');
  }
}
